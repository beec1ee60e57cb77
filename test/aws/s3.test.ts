/**
 * shared/platform/aws/s3.ts against the SDK it replaces: the same pre-signed URLs,
 * byte for byte, and GETs the local S3 accepts (it checks header signatures
 * the way it checks the SDK's own, test/local/s3.test.ts).
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { CREDENTIALS_EXPIRY_MARGIN_SECONDS, getObject, presignPut, putObject, S3RequestError, type S3Location } from '#shared/platform/aws/s3.ts';
import { startLocalS3 } from '#dev/local/s3.ts';
import type { LocalService } from '#dev/local/service.ts';

const CREDENTIALS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', sessionToken: 'session/token+with=odd chars' };
const SIGNING_DATE = new Date('2026-11-21T12:34:56Z');

/** The SDK's URL for the same PUT, without the `x-id` query parameter it adds for its own telemetry (S3 ignores it). */
async function sdkPresignedPut(location: S3Location, contentType: string, contentLength: number | undefined): Promise<string> {
  const client = new S3Client({
    region: location.region,
    credentials: location.credentials ?? CREDENTIALS,
    ...(location.endpoint ? { endpoint: location.endpoint, forcePathStyle: true } : {}),
    requestChecksumCalculation: 'WHEN_REQUIRED',
  });
  client.middlewareStack.add(
    (next) => (args) => {
      delete (args.request as { query: Record<string, unknown> }).query['x-id'];
      return next(args);
    },
    { step: 'build', name: 'dropXId' },
  );
  const command = new PutObjectCommand({
    Bucket: location.bucket,
    Key: location.key,
    ContentType: contentType,
    ...(contentLength === undefined ? {} : { ContentLength: contentLength }),
  });
  const signed = contentLength === undefined ? ['content-type'] : ['content-type', 'content-length'];
  return getSignedUrl(client, command, { expiresIn: 900, signableHeaders: new Set(signed), signingDate: SIGNING_DATE });
}

describe('pre-signed PUT', () => {
  const cases: [string, S3Location, number][] = [
    [
      'a virtual-hosted bucket, with the length signed',
      { region: 'eu-west-1', bucket: 'postlane-attachments-1a2b3c', key: 'acc_1/att 1+ü', credentials: CREDENTIALS },
      1234,
    ],
    [
      'a virtual-hosted bucket in another region',
      { region: 'us-east-1', bucket: 'postlane-attachments', key: 'acc_1/att_1', credentials: CREDENTIALS },
      7 * 1024 * 1024,
    ],
    [
      'a local path-style endpoint',
      { region: 'us-east-1', bucket: 'uploads', key: 'acc_1/att_1', endpoint: 'http://127.0.0.1:4569', credentials: CREDENTIALS },
      5,
    ],
  ];

  it.each(cases)('is the URL the SDK makes, for %s', async (_, location, contentLength) => {
    const ours = await presignPut(location, { contentType: 'application/pdf', contentLength, expiresInSeconds: 900, signingDate: SIGNING_DATE });
    expect(ours).toEqual({ url: await sdkPresignedPut(location, 'application/pdf', contentLength), expiresAt: new Date(SIGNING_DATE.getTime() + 900_000) });
  });

  it('uses the path style for a bucket name with dots, which a virtual host certificate would not cover', async () => {
    const url = new URL(
      (
        await presignPut(
          { region: 'eu-west-1', bucket: 'mail.example.com', key: 'a/b', credentials: CREDENTIALS },
          { contentType: 'text/plain', contentLength: 1, expiresInSeconds: 60 },
        )
      ).url,
    );
    expect([url.host, url.pathname]).toEqual(['s3.eu-west-1.amazonaws.com', '/mail.example.com/a/b']);
  });
});

describe('pre-signed PUT with expiring credentials', () => {
  let s3: LocalService;
  beforeAll(async () => {
    s3 = await startLocalS3({ port: 0 });
  });
  afterAll(() => s3.stop());

  const signedWith = (expiration: Date | undefined): S3Location => ({
    region: 'us-east-1',
    bucket: 'uploads',
    key: 'acc_1/att_2',
    endpoint: s3.endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local', ...(expiration ? { expiration } : {}) },
  });

  it('never claims to outlive the credentials that signed it: X-Amz-Expires and expiresAt stop a minute before they do', async () => {
    const expiration = new Date(SIGNING_DATE.getTime() + 10 * 60_000);

    const upload = await presignPut(signedWith(expiration), { contentType: 'text/plain', contentLength: 5, expiresInSeconds: 3600, signingDate: SIGNING_DATE });

    expect(new URL(upload.url).searchParams.get('X-Amz-Expires')).toBe(String(10 * 60 - CREDENTIALS_EXPIRY_MARGIN_SECONDS));
    expect(upload.expiresAt).toEqual(new Date(expiration.getTime() - CREDENTIALS_EXPIRY_MARGIN_SECONDS * 1000));
  });

  it('keeps the asked lifetime when the credentials last longer, or carry no expiry; the clamped URL still uploads', async () => {
    const later = await presignPut(signedWith(new Date(Date.now() + 6 * 3_600_000)), { contentType: 'text/plain', contentLength: 5, expiresInSeconds: 3600 });
    const unbounded = await presignPut(signedWith(undefined), { contentType: 'text/plain', contentLength: 5, expiresInSeconds: 3600 });
    const clamped = await presignPut(signedWith(new Date(Date.now() + 5 * 60_000)), { contentType: 'text/plain', contentLength: 5, expiresInSeconds: 3600 });

    expect([later.url, unbounded.url].map((url) => new URL(url).searchParams.get('X-Amz-Expires'))).toEqual(['3600', '3600']);
    expect(Number(new URL(clamped.url).searchParams.get('X-Amz-Expires'))).toBeLessThanOrEqual(5 * 60 - CREDENTIALS_EXPIRY_MARGIN_SECONDS);
    expect((await fetch(clamped.url, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'hello' })).status).toBe(200);
    expect((await fetch(clamped.url, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'hello!' })).status).toBe(403);
  });
});

describe('GET of an object', () => {
  let s3: LocalService;
  const at = (key: string, secretAccessKey = 'local'): S3Location => ({
    region: 'us-east-1',
    bucket: 'uploads',
    key,
    endpoint: s3.endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey },
  });

  beforeAll(async () => {
    s3 = await startLocalS3({ port: 0 });
    const upload = await presignPut(at('acc_1/report.pdf'), { contentType: 'application/pdf', contentLength: 11, expiresInSeconds: 60 });
    const put = await fetch(upload.url, { method: 'PUT', headers: { 'content-type': 'application/pdf' }, body: 'hello world' });
    expect(put.status).toBe(200);
  });
  afterAll(() => s3.stop());

  it('reads the content and type of an object within the limit', async () => {
    const object = await getObject(at('acc_1/report.pdf'), 100);
    expect(object).toMatchObject({ size: 11, contentType: 'application/pdf' });
    expect(Buffer.from(object!.content!).toString()).toBe('hello world');
  });

  it('stops at the headers of an object over the limit', async () => {
    expect(await getObject(at('acc_1/report.pdf'), 10)).toEqual({ size: 11, contentType: 'application/pdf' });
  });

  it('stores an object with a signed PUT, its body hash checked, and reads it back', async () => {
    const content = Buffer.from(JSON.stringify({ queued: 'message', bytes: 'é'.repeat(1000) }));
    await putObject(at('queued/acc_1/eml_1.json'), content, 'application/json');
    const object = await getObject(at('queued/acc_1/eml_1.json'), content.length);
    expect([object?.contentType, Buffer.from(object!.content!).equals(content)]).toEqual(['application/json', true]);
    await expect(putObject(at('queued/acc_1/eml_2.json', 'not-the-local-secret'), content, 'application/json')).rejects.toMatchObject({
      status: 403,
      code: 'SignatureDoesNotMatch',
    });
  });

  it('answers undefined for a key never uploaded', async () => {
    expect(await getObject(at('acc_1/nothing'), 100)).toBeUndefined();
  });

  it("throws S3's code for anything else, here a request signed with the wrong secret", async () => {
    const failure = getObject(at('acc_1/report.pdf', 'not-the-local-secret'), 100);
    await expect(failure).rejects.toBeInstanceOf(S3RequestError);
    await expect(failure).rejects.toMatchObject({ status: 403, code: 'SignatureDoesNotMatch' });
  });
});

describe('GET when S3 fails or throttles', () => {
  /** S3 itself cannot be made to answer 503 on demand: a server that answers SlowDown `failures` times, then the object. */
  async function flakyS3(failures: number) {
    let requests = 0;
    const server = createServer((_req, res) => {
      requests++;
      if (requests <= failures) {
        res.writeHead(503, { 'content-type': 'application/xml' }).end('<Error><Code>SlowDown</Code><Message>Reduce your request rate.</Message></Error>');
      } else {
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': 2 }).end('ok');
      }
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const location: S3Location = {
      region: 'us-east-1',
      bucket: 'uploads',
      key: 'a',
      endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    };
    return { location, requests: () => requests, close: () => server.close() };
  }

  it('tries again, up to three attempts in all', async () => {
    const s3 = await flakyS3(2);
    try {
      const object = await getObject(s3.location, 100);
      expect([Buffer.from(object!.content!).toString(), s3.requests()]).toEqual(['ok', 3]);
    } finally {
      s3.close();
    }
  });

  it("then gives up with S3's code", async () => {
    const s3 = await flakyS3(3);
    try {
      await expect(getObject(s3.location, 100)).rejects.toMatchObject({ name: 'S3RequestError', status: 503, code: 'SlowDown' });
      expect(s3.requests()).toBe(3);
    } finally {
      s3.close();
    }
  });
});
