import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DeleteObjectCommand, GetObjectCommand, NoSuchKey, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { startLocalS3 } from '#dev/local/s3.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'postlane-s3-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function clientFor(endpoint: string, secretAccessKey = 'local') {
  return new S3Client({
    region: 'us-east-1',
    endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: 'local', secretAccessKey },
    requestChecksumCalculation: 'WHEN_REQUIRED',
  });
}

function presignPut(client: S3Client, key: string, options: { signingDate?: Date } = {}) {
  return getSignedUrl(client, new PutObjectCommand({ Bucket: 'uploads', Key: key, ContentType: 'text/plain' }), {
    expiresIn: 60,
    signableHeaders: new Set(['content-type']),
    ...options,
  });
}

/** A fresh in-memory S3 for one test, stopped after it whatever the test does. */
async function withLocalS3(test: (s3: Awaited<ReturnType<typeof startLocalS3>>) => Promise<void>): Promise<void> {
  const s3 = await startLocalS3({ port: 0 });
  try {
    await test(s3);
  } finally {
    await s3.stop();
  }
}

describe('the local S3', () => {
  it('keeps objects in its directory across a restart, with their type', async () => {
    const first = await startLocalS3({ port: 0, dataDir });
    const url = await presignPut(clientFor(first.endpoint), 'acc_1/att_1');
    expect((await fetch(url, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'kept' })).status).toBe(200);
    await first.stop();

    const second = await startLocalS3({ port: 0, dataDir });
    try {
      const object = await clientFor(second.endpoint).send(new GetObjectCommand({ Bucket: 'uploads', Key: 'acc_1/att_1' }));
      expect([object.ContentType, object.ContentLength, await object.Body!.transformToString()]).toEqual(['text/plain', 4, 'kept']);
    } finally {
      await second.stop();
    }
  });

  it('answers a missing key with NoSuchKey, as S3 does', () =>
    withLocalS3(async (s3) => {
      await expect(clientFor(s3.endpoint).send(new GetObjectCommand({ Bucket: 'uploads', Key: 'nothing' }))).rejects.toBeInstanceOf(NoSuchKey);
    }));

  it('refuses a pre-signed URL that has expired, or was signed with another secret', () =>
    withLocalS3(async (s3) => {
      const expired = await presignPut(clientFor(s3.endpoint), 'a', { signingDate: new Date(Date.now() - 120_000) });
      const forged = await presignPut(clientFor(s3.endpoint, 'not-the-local-secret'), 'a');
      const put = (url: string) => fetch(url, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'x' });

      const [expiredAnswer, forgedAnswer] = [await put(expired), await put(forged)];

      expect([expiredAnswer.status, await expiredAnswer.text()]).toEqual([403, expect.stringContaining('<Code>AccessDenied</Code>')]);
      expect([forgedAnswer.status, await forgedAnswer.text()]).toEqual([403, expect.stringContaining('<Code>SignatureDoesNotMatch</Code>')]);
    }));

  it('checks signatures in the Authorization header too, and refuses anonymous requests, as a private bucket does', () =>
    withLocalS3(async (s3) => {
      await clientFor(s3.endpoint).send(new PutObjectCommand({ Bucket: 'uploads', Key: 'signed', Body: 'x', ContentType: 'text/plain' }));
      await expect(clientFor(s3.endpoint, 'not-the-local-secret').send(new GetObjectCommand({ Bucket: 'uploads', Key: 'signed' }))).rejects.toMatchObject({
        name: 'SignatureDoesNotMatch',
      });
      const anonymous = await fetch(`${s3.endpoint}/uploads/signed`);
      expect([anonymous.status, await anonymous.text()]).toEqual([403, expect.stringContaining('<Code>AccessDenied</Code>')]);
    }));

  it('checks a signed body hash against the body, and deletes objects', () =>
    withLocalS3(async (s3) => {
      const client = clientFor(s3.endpoint);
      await client.send(new PutObjectCommand({ Bucket: 'uploads', Key: 'gone', Body: 'x', ContentType: 'text/plain' }));
      await client.send(new DeleteObjectCommand({ Bucket: 'uploads', Key: 'gone' }));
      await expect(client.send(new GetObjectCommand({ Bucket: 'uploads', Key: 'gone' }))).rejects.toBeInstanceOf(NoSuchKey);

      // The body changed after signing: a signed hash of 'x', a body of 'y'.
      client.middlewareStack.add(
        (next) => async (args) => {
          (args.request as { body: unknown }).body = 'y';
          return next(args);
        },
        { step: 'finalizeRequest', name: 'swapBody', priority: 'low' },
      );
      await expect(client.send(new PutObjectCommand({ Bucket: 'uploads', Key: 'tampered', Body: 'x', ContentType: 'text/plain' }))).rejects.toMatchObject({
        name: 'XAmzContentSHA256Mismatch',
      });
    }));
});
