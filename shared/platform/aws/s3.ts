/**
 * The S3 calls Postlane makes, signed with SigV4 directly rather than
 * through `@aws-sdk/client-s3`: a pre-signed PUT for an upload, a GET of an
 * uploaded object, and a PUT of a throttled message too large for its queue. The S3 client brings about 130 KB (XML protocol, checksums,
 * multi-region signing, the S3 middleware) to the two functions that need it,
 * email/send and attachments/create, and about 10 ms to their cold starts; the
 * signer it would use is in every bundle already, under the DynamoDB client.
 *
 * Signing follows the SDK's S3 settings: the path is not escaped twice,
 * GETs carry `x-amz-content-sha256`, pre-signed URLs say UNSIGNED-PAYLOAD
 * (test/aws/s3.test.ts compares the URLs with the SDK's own).
 */
import { createHash, createHmac, type BinaryLike, type Hash, type Hmac } from 'node:crypto';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { doesIdentityRequireRefresh, isIdentityExpired, memoizeIdentityProvider } from '@smithy/core';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider, HttpRequest, SourceData } from '@smithy/types';

export interface S3Location {
  region: string;
  bucket: string;
  key: string;
  /** A local S3 (path-style, `http://127.0.0.1:4569`); unset, the region's S3 endpoint. */
  endpoint?: string;
  /** Set for a local S3: real AWS credentials come from the runtime. */
  credentials?: AwsCredentialIdentity;
}

const toBytes = (data: SourceData): BinaryLike =>
  typeof data === 'string' ? data : ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : new Uint8Array(data);

/** SHA-256 (and, given a key, HMAC-SHA256) as the signer takes it: node:crypto rather than the SDK's JS copy. */
class Sha256 {
  private readonly hash: Hash | Hmac;
  constructor(secret?: SourceData) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', toBytes(secret));
  }
  update(data: SourceData): void {
    this.hash.update(toBytes(data));
  }
  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.hash.digest()));
  }
}

let runtimeCredentials: AwsCredentialIdentityProvider | undefined;

/** The location's own (a local S3), else the runtime's, held as the SDK's clients hold theirs: read once, again five minutes before they expire. */
function credentialsFor(location: S3Location): AwsCredentialIdentity | AwsCredentialIdentityProvider {
  if (location.credentials) return location.credentials;
  runtimeCredentials ??= memoizeIdentityProvider(defaultProvider(), isIdentityExpired, doesIdentityRequireRefresh)!;
  return runtimeCredentials;
}

function signerFor(location: S3Location, credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider = credentialsFor(location)): SignatureV4 {
  return new SignatureV4({
    service: 's3',
    region: location.region,
    credentials,
    sha256: Sha256,
    uriEscapePath: false,
    applyChecksum: true,
  });
}

/** RFC 3986, as SigV4 canonicalises and as S3 reads a key. */
const escapeUri = (text: string) => encodeURIComponent(text).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
const escapeKey = (key: string) => key.split('/').map(escapeUri).join('/');

/**
 * The request for an object: path-style on a local endpoint and for bucket
 * names with dots (a virtual host would not match S3's certificate),
 * virtual-hosted otherwise.
 */
function objectRequest(location: S3Location, method: string, headers: Record<string, string>): HttpRequest {
  const key = escapeKey(location.key);
  if (location.endpoint) {
    const url = new URL(location.endpoint);
    return {
      method,
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: `${url.pathname.replace(/\/$/, '')}/${escapeUri(location.bucket)}/${key}`,
      query: {},
      headers: { host: url.host, ...headers },
    };
  }
  const pathStyle = location.bucket.includes('.');
  const hostname = pathStyle ? `s3.${location.region}.amazonaws.com` : `${location.bucket}.s3.${location.region}.amazonaws.com`;
  return {
    method,
    protocol: 'https:',
    hostname,
    path: pathStyle ? `/${location.bucket}/${key}` : `/${key}`,
    query: {},
    headers: { host: hostname, ...headers },
  };
}

function urlOf(request: HttpRequest): string {
  const query = Object.entries(request.query ?? {})
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, value]) => `${escapeUri(name)}=${escapeUri(String(value))}`)
    .join('&');
  return `${request.protocol}//${request.hostname}${request.port ? `:${request.port}` : ''}${request.path}${query ? `?${query}` : ''}`;
}

export interface PresignedPut {
  contentType: string;
  /**
   * Always signed: S3 refuses an upload of any other length. A pre-signed PUT
   * can bind only an exact length (a length range needs a POST policy), so an
   * unsigned one would take any object up to S3's 5 GB.
   */
  contentLength: number;
  /** The longest the URL should work; less when the signing credentials expire sooner. */
  expiresInSeconds: number;
  signingDate?: Date;
}

/**
 * Kept between the URL's end and the credentials': S3 checks a pre-signed
 * request against the credentials that signed it, so a URL outliving its
 * session token fails early whatever X-Amz-Expires says.
 */
export const CREDENTIALS_EXPIRY_MARGIN_SECONDS = 60;

/** The URL and when it really stops working. */
export interface SignedUpload {
  url: string;
  expiresAt: Date;
}

/**
 * A URL that PUTs this object with exactly the signed Content-Type and
 * Content-Length, valid for `expiresInSeconds` or until shortly before the
 * signing credentials expire (a Lambda role's session), whichever is sooner.
 */
export async function presignPut(location: S3Location, put: PresignedPut): Promise<SignedUpload> {
  const headers: Record<string, string> = {
    'content-type': put.contentType,
    'content-length': String(put.contentLength),
    // S3 cannot hash a body it has not seen when the URL is made. Spelled as the SDK spells it: the signer hoists it into the query as named.
    'X-Amz-Content-Sha256': 'UNSIGNED-PAYLOAD',
  };
  return presign(location, 'PUT', headers, {}, put.expiresInSeconds, put.signingDate);
}

/**
 * A URL that GETs this object, valid as long as `presignPut`'s would be.
 * `downloadAs` names the file a browser saves (S3's response-content-disposition, part of the signature).
 */
export async function presignGet(location: S3Location, get: { expiresInSeconds: number; downloadAs?: string; signingDate?: Date }): Promise<SignedUpload> {
  const query: Record<string, string> = get.downloadAs
    ? { 'response-content-disposition': `attachment; filename="${get.downloadAs.replace(/["\\\r\n]/g, '_')}"` }
    : {};
  return presign(location, 'GET', { 'X-Amz-Content-Sha256': 'UNSIGNED-PAYLOAD' }, query, get.expiresInSeconds, get.signingDate);
}

async function presign(
  location: S3Location,
  method: 'GET' | 'PUT',
  headers: Record<string, string>,
  query: Record<string, string>,
  expiresInSeconds: number,
  signingDate = new Date(),
): Promise<SignedUpload> {
  const source = credentialsFor(location);
  const credentials = typeof source === 'function' ? await source() : source;
  const credentialsLeft = credentials.expiration
    ? Math.floor((credentials.expiration.getTime() - signingDate.getTime()) / 1000) - CREDENTIALS_EXPIRY_MARGIN_SECONDS
    : Infinity;
  const expiresIn = Math.max(1, Math.min(expiresInSeconds, credentialsLeft));
  const request = objectRequest(location, method, headers);
  request.query = { ...request.query, ...query };
  const signed = await signerFor(location, credentials).presign(request, {
    expiresIn,
    signableHeaders: new Set(Object.keys(headers).filter((name) => name.startsWith('content-'))),
    signingDate,
  });
  // X-Amz-Date has whole seconds: the URL ends `expiresIn` after that, not after `signingDate`'s milliseconds.
  return { url: urlOf(signed), expiresAt: new Date(Math.floor(signingDate.getTime() / 1000) * 1000 + expiresIn * 1000) };
}

export class S3RequestError extends Error {
  override readonly name = 'S3RequestError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const keepAlive = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };

function send(request: HttpRequest): Promise<IncomingMessage> {
  const https = request.protocol === 'https:';
  return new Promise((resolve, reject) => {
    const outgoing = (https ? httpsRequest : httpRequest)(
      {
        method: request.method,
        hostname: request.hostname,
        ...(request.port ? { port: request.port } : {}),
        path: request.path,
        headers: request.headers,
        agent: https ? keepAlive.https : keepAlive.http,
        timeout: 10_000,
      },
      resolve,
    );
    outgoing.on('timeout', () => outgoing.destroy(new S3RequestError(504, 'RequestTimeout', 'S3 did not answer within 10 seconds')));
    outgoing.on('error', reject);
    outgoing.end(request.body as Uint8Array | undefined);
  });
}

async function readAll(response: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of response as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

export interface StoredObject {
  size: number;
  contentType: string | undefined;
  /** Absent when the object is larger than the reader asked for: its body is not downloaded. */
  content?: Uint8Array;
}

/** S3's answers to retry, as the SDK's standard strategy does: its own faults and throttling. */
const RETRYABLE_STATUS = new Set([500, 502, 503, 504]);
const RETRY_DELAYS_MS = [50, 250];

/** Sends a signed request, again after a short wait when S3 fails or throttles (three attempts in all); each attempt is signed afresh. */
async function sendWithRetries(location: S3Location, method: string, headers: Record<string, string> = {}, body?: Uint8Array): Promise<IncomingMessage> {
  for (let attempt = 0; ; attempt++) {
    const delay = RETRY_DELAYS_MS[attempt];
    try {
      const request = { ...objectRequest(location, method, headers), ...(body ? { body } : {}) };
      const response = await send(await signerFor(location).sign(request));
      if (delay === undefined || !RETRYABLE_STATUS.has(response.statusCode ?? 0)) return response;
      response.resume();
    } catch (error) {
      if (delay === undefined || error instanceof S3RequestError) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

async function failure(location: S3Location, method: string, response: IncomingMessage): Promise<S3RequestError> {
  const status = response.statusCode ?? 0;
  const code = /<Code>([^<]*)<\/Code>/.exec((await readAll(response)).toString('utf8'))?.[1] ?? `HTTP${status}`;
  return new S3RequestError(status, code, `S3 answered ${method} of ${location.bucket}/${location.key} with ${status} ${code}`);
}

/** Stores `content` under the location's key, replacing what was there. */
export async function putObject(location: S3Location, content: Uint8Array, contentType: string): Promise<void> {
  const response = await sendWithRetries(location, 'PUT', { 'content-type': contentType, 'content-length': String(content.byteLength) }, content);
  if (response.statusCode !== 200) throw await failure(location, 'PUT', response);
  response.resume();
}

/** The object, with its content when at most `maxBytes`; undefined when there is no such key. */
export async function getObject(location: S3Location, maxBytes: number): Promise<StoredObject | undefined> {
  const response = await sendWithRetries(location, 'GET');
  if (response.statusCode !== 200) {
    const error = await failure(location, 'GET', response);
    if (error.status === 404 && error.code === 'NoSuchKey') return undefined;
    throw error;
  }
  const size = Number(response.headers['content-length'] ?? 0);
  const contentType = response.headers['content-type'];
  if (size > maxBytes) {
    // Headers are enough to refuse it; drop the connection rather than download megabytes for nothing.
    response.destroy();
    return { size, contentType };
  }
  return { size, contentType, content: new Uint8Array(await readAll(response)) };
}
