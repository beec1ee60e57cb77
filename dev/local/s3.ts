/**
 * A minimal S3 for `npm start` and the tests: path-style `/<bucket>/<key>`,
 * PUT, GET, HEAD and DELETE of objects, any bucket name. Pre-signed URLs are checked
 * as S3 checks them (SigV4 with the local credentials, expiry, and the signed
 * headers, so a PUT with another Content-Type or Content-Length is refused),
 * and so are requests signed in the Authorization header; anonymous ones are
 * refused, as by a private bucket.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { listenLocally, type LocalService } from './service.ts';

/** What `awsConnection` gives every local client. */
const SECRET_ACCESS_KEY = 'local';
/** Far above an attachment's 7 MB; keeps a stray upload from filling memory. */
export const LOCAL_S3_MAX_OBJECT_BYTES = 64 * 1024 * 1024;

interface StoredObject {
  body: Buffer;
  contentType: string;
  lastModified: string;
}

interface ObjectStore {
  put(bucket: string, key: string, object: StoredObject): void;
  get(bucket: string, key: string): StoredObject | undefined;
  /** As S3: deleting a missing key is no error. */
  delete(bucket: string, key: string): void;
}

function memoryStore(): ObjectStore {
  const objects = new Map<string, StoredObject>();
  return {
    put: (bucket, key, object) => void objects.set(`${bucket}/${key}`, object),
    get: (bucket, key) => objects.get(`${bucket}/${key}`),
    delete: (bucket, key) => void objects.delete(`${bucket}/${key}`),
  };
}

/** One body file and one metadata file per object, so uploads outlive a restart of `npm start`. */
function directoryStore(directory: string): ObjectStore {
  const path = (bucket: string, key: string) => join(directory, encodeURIComponent(bucket), encodeURIComponent(key));
  return {
    put(bucket, key, object) {
      mkdirSync(join(directory, encodeURIComponent(bucket)), { recursive: true });
      writeFileSync(`${path(bucket, key)}.bin`, object.body);
      writeFileSync(`${path(bucket, key)}.json`, JSON.stringify({ contentType: object.contentType, lastModified: object.lastModified }));
    },
    delete(bucket, key) {
      rmSync(`${path(bucket, key)}.bin`, { force: true });
      rmSync(`${path(bucket, key)}.json`, { force: true });
    },
    get(bucket, key) {
      try {
        const meta = JSON.parse(readFileSync(`${path(bucket, key)}.json`, 'utf8')) as Omit<StoredObject, 'body'>;
        return { ...meta, body: readFileSync(`${path(bucket, key)}.bin`) };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
    },
  };
}

class S3Error extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const xmlEscape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * RFC 3986 encoding, as SigV4 canonicalises query strings. Written here again
 * rather than taken from shared/platform/aws/s3.ts on purpose: the stand-in checks that
 * code's signatures, and must not share its mistakes.
 */
const uriEncode = (text: string) => encodeURIComponent(text).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const hmac = (key: Buffer | string, text: string) => createHmac('sha256', key).update(text).digest();

/** `20261121T200734Z` → epoch ms. */
function amzDateMs(value: string): number {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (!match) return Number.NaN;
  const [, year, month, day, hour, minute, second] = match.map(Number) as number[];
  return Date.UTC(year!, month! - 1, day, hour, minute, second);
}

interface SignedParts {
  amzDate: string;
  /** `local/20261121/us-east-1/s3/aws4_request`. */
  credential: string;
  signedHeaders: string;
  signature: string;
  canonicalQuery: string;
  payloadHash: string;
}

function canonicalQueryOf(pairs: readonly (readonly [string, string])[]): string {
  return pairs
    .map(([name, value]) => [uriEncode(name), uriEncode(value)] as const)
    .sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : 1) : a < b ? -1 : 1))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
}

/** Recomputes the SigV4 signature with the local secret; throws SignatureDoesNotMatch as S3 does. */
function verifySignature(request: IncomingMessage, path: string, parts: SignedParts): void {
  const canonicalHeaders = parts.signedHeaders
    .split(';')
    .map(
      (name) =>
        `${name}:${String(request.headers[name] ?? '')
          .trim()
          .replace(/\s+/g, ' ')}\n`,
    )
    .join('');
  const canonicalRequest = [request.method, path, parts.canonicalQuery, canonicalHeaders, parts.signedHeaders, parts.payloadHash].join('\n');
  const scope = parts.credential.slice(parts.credential.indexOf('/') + 1);
  const [date = '', region = '', service = ''] = scope.split('/');
  const stringToSign = ['AWS4-HMAC-SHA256', parts.amzDate, scope, sha256(canonicalRequest)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${SECRET_ACCESS_KEY}`, date), region), service), 'aws4_request');
  const expected = hmac(key, stringToSign).toString('hex');
  if (parts.signature.length !== expected.length || !timingSafeEqual(Buffer.from(parts.signature), Buffer.from(expected))) {
    throw new S3Error(403, 'SignatureDoesNotMatch', 'The request signature does not match (are Content-Type and Content-Length the signed ones?)');
  }
}

function queryPairs(rawQuery: string): (readonly [string, string])[] {
  return rawQuery
    .split('&')
    .filter(Boolean)
    .map((part) => {
      const [name = '', value = ''] = part.split('=');
      return [decodeURIComponent(name), decodeURIComponent(value.replace(/\+/g, ' '))] as const;
    });
}

/** Checks a query-signed (pre-signed) request; throws the error S3 would answer with. */
function verifyPresigned(request: IncomingMessage, path: string, rawQuery: string, now: number): void {
  const pairs = queryPairs(rawQuery);
  const query = new Map(pairs);
  const amzDate = query.get('X-Amz-Date') ?? '';
  const credential = query.get('X-Amz-Credential') ?? '';
  const expires = Number(query.get('X-Amz-Expires'));
  const issued = amzDateMs(amzDate);
  if (query.get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256' || Number.isNaN(issued) || !Number.isInteger(expires) || !credential.includes('/')) {
    throw new S3Error(400, 'AuthorizationQueryParametersError', 'The pre-signed query parameters are incomplete or malformed');
  }
  if (now > issued + expires * 1000) throw new S3Error(403, 'AccessDenied', 'Request has expired');
  verifySignature(request, path, {
    amzDate,
    credential,
    signedHeaders: query.get('X-Amz-SignedHeaders') ?? '',
    signature: query.get('X-Amz-Signature') ?? '',
    canonicalQuery: canonicalQueryOf(pairs.filter(([name]) => name !== 'X-Amz-Signature')),
    payloadHash: query.get('X-Amz-Content-Sha256') ?? 'UNSIGNED-PAYLOAD',
  });
}

/** Checks a request signed in its Authorization header, as the SDK and shared/platform/aws/s3.ts sign calls. */
function verifyHeaderSigned(request: IncomingMessage, path: string, rawQuery: string): void {
  const match = /^AWS4-HMAC-SHA256 Credential=([^,\s]+),\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]+)$/.exec(request.headers.authorization ?? '');
  const amzDate = String(request.headers['x-amz-date'] ?? '');
  const payloadHash = request.headers['x-amz-content-sha256'];
  if (!match || Number.isNaN(amzDateMs(amzDate))) throw new S3Error(400, 'AuthorizationHeaderMalformed', 'The authorization header is malformed');
  if (typeof payloadHash !== 'string') throw new S3Error(400, 'InvalidRequest', 'Missing required header for this request: x-amz-content-sha256');
  const [, credential = '', signedHeaders = '', signature = ''] = match;
  verifySignature(request, path, { amzDate, credential, signedHeaders, signature, canonicalQuery: canonicalQueryOf(queryPairs(rawQuery)), payloadHash });
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > LOCAL_S3_MAX_OBJECT_BYTES) throw new S3Error(400, 'EntityTooLarge', `The local S3 takes objects up to ${LOCAL_S3_MAX_OBJECT_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Browsers PUT to pre-signed URLs from pages of any origin, as the bucket's CORS rule allows in AWS. */
const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, PUT, HEAD',
  'access-control-allow-headers': 'content-type',
  'access-control-expose-headers': 'etag',
};

async function handle(store: ObjectStore, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const [rawPath = '/', rawQuery = ''] = (request.url ?? '/').split('?');
  for (const [name, value] of Object.entries(CORS_HEADERS)) response.setHeader(name, value);
  if (request.method === 'OPTIONS') {
    response.writeHead(204).end();
    return;
  }
  const slash = rawPath.indexOf('/', 1);
  const bucket = decodeURIComponent(rawPath.slice(1, slash < 0 ? undefined : slash));
  const key = slash < 0 ? '' : decodeURIComponent(rawPath.slice(slash + 1));
  if (!bucket || !key) throw new S3Error(400, 'InvalidRequest', 'Only path-style object requests (/<bucket>/<key>) are served here');
  if (rawQuery.includes('X-Amz-Signature=')) verifyPresigned(request, rawPath, rawQuery, Date.now());
  else if (request.headers.authorization) verifyHeaderSigned(request, rawPath, rawQuery);
  else throw new S3Error(403, 'AccessDenied', 'Anonymous requests are refused: sign the request or use a pre-signed URL');

  switch (request.method) {
    case 'PUT': {
      const body = await readBody(request);
      const declaredHash = request.headers['x-amz-content-sha256'];
      // A signed payload hash (rather than UNSIGNED-PAYLOAD) must be the body's, as S3 checks it.
      if (typeof declaredHash === 'string' && /^[0-9a-f]{64}$/.test(declaredHash) && declaredHash !== createHash('sha256').update(body).digest('hex')) {
        throw new S3Error(400, 'XAmzContentSHA256Mismatch', 'The provided x-amz-content-sha256 header does not match what was computed.');
      }
      const contentType = request.headers['content-type'] ?? 'binary/octet-stream';
      store.put(bucket, key, { body, contentType, lastModified: new Date().toUTCString() });
      response.writeHead(200, { etag: `"${createHash('md5').update(body).digest('hex')}"`, 'content-length': 0 }).end();
      return;
    }
    case 'GET':
    case 'HEAD': {
      const object = store.get(bucket, key);
      if (!object) throw new S3Error(404, 'NoSuchKey', 'The specified key does not exist.');
      response.writeHead(200, {
        'content-type': object.contentType,
        'content-length': object.body.length,
        'last-modified': object.lastModified,
        etag: `"${createHash('md5').update(object.body).digest('hex')}"`,
      });
      response.end(request.method === 'GET' ? object.body : undefined);
      return;
    }
    case 'DELETE':
      store.delete(bucket, key);
      response.writeHead(204).end();
      return;
    default:
      throw new S3Error(405, 'MethodNotAllowed', `${request.method} is not served by the local S3`);
  }
}

function answerError(request: IncomingMessage, response: ServerResponse, error: S3Error): void {
  if (request.method === 'HEAD') {
    response.writeHead(error.status).end();
    return;
  }
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${error.code}</Code><Message>${xmlEscape(error.message)}</Message></Error>`;
  response.writeHead(error.status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body) }).end(body);
}

/**
 * Listens on `host:port` (port 0: any free one). With `dataDir`, objects are
 * kept in files there; without, in memory.
 *
 * `const s3 = await startLocalS3({ port: 0 }); // S3_ENDPOINT=s3.endpoint`
 */
export async function startLocalS3(options: { port: number; host?: string; dataDir?: string }): Promise<LocalService> {
  const host = options.host ?? '127.0.0.1';
  const store = options.dataDir ? directoryStore(options.dataDir) : memoryStore();
  const server = createServer((request, response) => {
    handle(store, request, response).catch((error: unknown) => {
      if (response.headersSent) return void response.destroy();
      // A refused upload is answered at once; the rest of its body is not read.
      if (error instanceof S3Error) answerError(request, response, error);
      else answerError(request, response, new S3Error(500, 'InternalError', (error as Error).message));
    });
  });
  const { endpoint, stop } = await listenLocally(server, options.port, host);
  return { endpoint, stop };
}
