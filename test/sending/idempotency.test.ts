import { afterEach, describe, expect, it, vi } from 'vitest';
import { claimIdempotencyKey, idempotencyScope } from '#shared/sending/idempotency-store.ts';
import { db } from '#shared/platform/dynamodb/client.ts';
import { IDEMPOTENCY_TTL_SECONDS, IN_PROGRESS_LEASE_MS, makeIdempotent, payloadHash } from '#shared/sending/idempotency.ts';
import { localVerifier, verifyDomain } from '#shared/domains/verification.ts';
import { ses } from '#shared/sending/transport.ts';
import { request } from '../support/api.ts';
import { createSender, expectReplayed, storedEmails, uniqueAddress } from './support.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

const transactional = (key: string, body: Record<string, unknown>) => request('POST', '/api/transactional/send', { key, body });

describe('idempotency keys', () => {
  it('replay the first response for the same key and body, with Idempotent-Replayed, and send nothing again', async () => {
    const sender = await createSender();
    const body = { from: sender.from, to: uniqueAddress(), subject: 'Receipt {{n}}', content: '<p>{{n}}</p>', variables: { n: 7 }, idempotencyKey: 'order-7' };

    const first = await transactional(sender.key, body);
    const again = await transactional(sender.key, { ...body, variables: { n: 7 } });

    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expectReplayed(again, first);
    expect(await storedEmails(sender.domain)).toHaveLength(1);
  });

  it('work on POST /api/email/send too: the same send to several recipients is replayed, a changed one refused', async () => {
    const sender = await createSender();
    const body = {
      from: sender.from,
      recipients: [uniqueAddress('a'), uniqueAddress('b')],
      subject: 'Launch',
      content: '<p>Launch</p>',
      idempotencyKey: 'launch-2026',
    };

    const first = await request('POST', '/api/email/send', { key: sender.key, body });
    const again = await request('POST', '/api/email/send', { key: sender.key, body });
    const changed = await request('POST', '/api/email/send', { key: sender.key, body: { ...body, subject: 'Launch!' } });

    expect(first.status).toBe(200);
    expect(first.body.successfulEmails).toHaveLength(2);
    expect([again.status, again.headers.get('idempotent-replayed')]).toEqual([200, 'true']);
    expect(again.body).toEqual(first.body);
    expect(changed.status).toBe(422);
    expect(changed.body).toMatchObject({ error: 'IDEMPOTENCY_KEY_REUSED', field: 'idempotencyKey' });
    expect(await storedEmails(sender.domain)).toHaveLength(2);
  });

  it('never send a multi-recipient email twice when identical requests race', async () => {
    const sender = await createSender();
    const body = {
      from: sender.from,
      recipients: [uniqueAddress('a'), uniqueAddress('b'), uniqueAddress('c')],
      subject: 'S',
      content: '<p>S</p>',
      idempotencyKey: 'race-send',
    };

    const responses = await Promise.all(Array.from({ length: 6 }, () => request('POST', '/api/email/send', { key: sender.key, body })));

    const succeeded = responses.filter((response) => response.status === 200);
    expect(responses.every((response) => response.status === 200 || response.body.error === 'IDEMPOTENCY_IN_PROGRESS')).toBe(true);
    expect(new Set(succeeded.map((response) => JSON.stringify(response.body.successfulEmails))).size).toBe(1);
    expect(await storedEmails(sender.domain)).toHaveLength(3);
  });

  it('treat `to` and its alias `email` as the same OTP request', async () => {
    const sender = await createSender();
    const to = uniqueAddress();

    const first = await request('POST', '/api/otp/send', { key: sender.key, body: { from: sender.from, to, code: '123', idempotencyKey: 'login-1' } });
    const again = await request('POST', '/api/otp', { key: sender.key, body: { from: sender.from, email: to, code: '123', idempotencyKey: 'login-1' } });

    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.trackingId).toBe(first.body.trackingId);
    expect(await storedEmails(sender.domain)).toHaveLength(1);
  });

  it('refuse the same key with a different body: 422 IDEMPOTENCY_KEY_REUSED', async () => {
    const sender = await createSender();
    const body = { from: sender.from, to: uniqueAddress(), code: '111', idempotencyKey: 'k' };
    await request('POST', '/api/otp/send', { key: sender.key, body });

    const reused = await request('POST', '/api/otp/send', { key: sender.key, body: { ...body, code: '222' } });

    expect(reused.status).toBe(422);
    expect(reused.body).toEqual({ success: false, error: 'IDEMPOTENCY_KEY_REUSED', message: expect.any(String), field: 'idempotencyKey' });
    expect(await storedEmails(sender.domain)).toHaveLength(1);
  });

  it('answer 409 IDEMPOTENCY_IN_PROGRESS with retryAfter while the first request is in flight', async () => {
    const sender = await createSender();
    const body = { from: sender.from, to: uniqueAddress(), subject: 'S', content: '<p>S</p>', idempotencyKey: 'slow' };
    const original = ses.send.bind(ses);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reachedSes!: () => void;
    const inSes = new Promise<void>((resolve) => {
      reachedSes = resolve;
    });
    vi.spyOn(ses, 'send').mockImplementationOnce((async (command: Parameters<typeof ses.send>[0]) => {
      reachedSes();
      await gate;
      return original(command);
    }) as typeof ses.send);

    const first = transactional(sender.key, body);
    await inSes;
    const meanwhile = await transactional(sender.key, body);
    release();
    const done = await first;
    const after = await transactional(sender.key, body);

    expect(meanwhile.status).toBe(409);
    expect(meanwhile.body).toEqual({
      success: false,
      error: 'IDEMPOTENCY_IN_PROGRESS',
      message: expect.any(String),
      field: 'idempotencyKey',
      retryAfter: expect.any(Number),
    });
    expect(meanwhile.body.retryAfter).toBeGreaterThan(0);
    expect(meanwhile.body.retryAfter).toBeLessThanOrEqual(IN_PROGRESS_LEASE_MS / 1000);
    expect(meanwhile.headers.get('retry-after')).toBe(String(meanwhile.body.retryAfter));
    expect(done.status).toBe(200);
    expect(after.body).toEqual(done.body);
    expect(await storedEmails(sender.domain)).toHaveLength(1);
  });

  it('never send twice when identical requests race', async () => {
    const sender = await createSender();
    const body = { from: sender.from, to: uniqueAddress(), code: '4242', idempotencyKey: 'race' };

    const responses = await Promise.all(Array.from({ length: 8 }, () => request('POST', '/api/otp/send', { key: sender.key, body })));

    const succeeded = responses.filter((response) => response.status === 200);
    expect(responses.every((response) => response.status === 200 || response.body.error === 'IDEMPOTENCY_IN_PROGRESS')).toBe(true);
    expect(succeeded.length).toBeGreaterThan(0);
    expect(new Set(succeeded.map((response) => response.body.emailId)).size).toBe(1);
    expect(await storedEmails(sender.domain)).toHaveLength(1);
  });

  it('are scoped to the endpoint and to live or test keys', async () => {
    const sender = await createSender();
    const to = uniqueAddress();

    const asOtp = await request('POST', '/api/otp/send', { key: sender.key, body: { from: sender.from, to, code: '1', idempotencyKey: 'same' } });
    const asTransactional = await transactional(sender.key, { from: sender.from, to, subject: 'S', content: '<p>S</p>', idempotencyKey: 'same' });
    const withTestKey = await request('POST', '/api/otp/send', { key: sender.testKey, body: { from: sender.from, to, code: '1', idempotencyKey: 'same' } });

    expect([asOtp.status, asTransactional.status, withTestKey.status]).toEqual([200, 200, 200]);
    expect(withTestKey.headers.get('idempotent-replayed')).toBeNull();
    expect(new Set([asOtp.body.emailId, asTransactional.body.emailId, withTestKey.body.emailId]).size).toBe(3);
  });

  // Both endpoints: giving a key back deletes its claim, which each function's role must allow.
  it.each([
    ['/api/transactional/send', (to: string) => ({ to })],
    ['/api/email/send', (to: string) => ({ recipients: [to] })],
  ])('are given back when the request fails, so the same key can be retried at once (%s)', async (path, addressed) => {
    const sender = await createSender();
    const domain = `later-${sender.domain}`;
    const body = { from: `news@${domain}`, ...addressed(uniqueAddress()), subject: 'S', content: '<p>S</p>', idempotencyKey: 'retry-me' };

    const refused = await request('POST', path, { key: sender.key, body });
    await verifyDomain(sender.accountId, domain, localVerifier);
    const retried = await request('POST', path, { key: sender.key, body });

    expect(refused.body.error).toBe('SENDER_NOT_VERIFIED');
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(await storedEmails(domain)).toHaveLength(1);
  });

  it('are given back when DynamoDB fails before anything was sent', async () => {
    const sender = await createSender();
    const body = { from: sender.from, to: uniqueAddress(), code: '9', idempotencyKey: 'outage' };
    const original = db.send.bind(db);
    vi.spyOn(db, 'send').mockImplementation(((command: { constructor: { name: string } }, ...rest: unknown[]) => {
      if (command.constructor.name === 'QueryCommand') return Promise.reject(Object.assign(new Error('Service unavailable'), { name: 'ServiceUnavailable' }));
      return (original as (...args: unknown[]) => Promise<unknown>)(command, ...rest);
    }) as typeof db.send);

    const failed = await request('POST', '/api/otp/send', { key: sender.key, body });
    vi.restoreAllMocks();
    const retried = await request('POST', '/api/otp/send', { key: sender.key, body });

    expect(failed.status).toBe(500);
    expect(failed.body).toEqual({ success: false, error: 'INTERNAL_ERROR', message: 'An unexpected error occurred; retry the request' });
    expect(retried.status).toBe(200);
    expect(await storedEmails(sender.domain)).toHaveLength(1);
  });

  it("let a crashed request's claim go when its lease ends, and forget completed keys after 24 hours", async () => {
    const sender = await createSender();
    const start = Date.parse('2026-11-21T10:00:00Z');
    const at = (ms: number) => new Date(start + ms);
    const options = { accountId: sender.accountId, scope: idempotencyScope('live', 'test'), payload: { a: 1 } };
    let runs = 0;
    const run = async () => ({ run: ++runs });

    await claimIdempotencyKey(
      { accountId: sender.accountId, scope: idempotencyScope('live', 'test'), key: 'crashed' },
      { payloadHash: payloadHash(options.payload), token: 'dead', leaseUntil: start + IN_PROGRESS_LEASE_MS, expiresAt: start / 1000 + 60 },
      at(0),
    );
    const blocked = await makeIdempotent({ ...options, key: 'crashed', now: at(10_000) }, run).catch((error: unknown) => error);
    const takenOver = await makeIdempotent({ ...options, key: 'crashed', now: at(IN_PROGRESS_LEASE_MS + 1) }, run);

    const completed = await makeIdempotent({ ...options, key: 'done', now: at(0) }, run);
    const replayed = await makeIdempotent({ ...options, key: 'done', now: at(IDEMPOTENCY_TTL_SECONDS * 1000 - 1000) }, run);
    const expired = await makeIdempotent({ ...options, key: 'done', now: at(IDEMPOTENCY_TTL_SECONDS * 1000 + 1000) }, run);

    expect(blocked).toMatchObject({ code: 'IDEMPOTENCY_IN_PROGRESS', details: { retryAfter: IN_PROGRESS_LEASE_MS / 1000 - 10 } });
    expect(takenOver).toEqual({ response: { run: 1 }, replayed: false });
    expect(completed).toEqual({ response: { run: 2 }, replayed: false });
    expect(replayed).toEqual({ response: { run: 2 }, replayed: true });
    expect(expired).toEqual({ response: { run: 3 }, replayed: false });
  });

  it('report an in-flight claim with the seconds left on its lease', async () => {
    const sender = await createSender();
    const start = Date.parse('2026-11-21T10:00:00Z');
    const options = { accountId: sender.accountId, scope: idempotencyScope('live', 'test'), key: 'busy', payload: { a: 1 } };
    let release!: () => void;
    const holding = makeIdempotent(
      { ...options, now: new Date(start) },
      () =>
        new Promise<Record<string, unknown>>((resolve) => {
          release = () => resolve({});
        }),
    );
    await vi.waitFor(() => expect(release).toBeDefined());

    const busy = await makeIdempotent({ ...options, now: new Date(start + 12_000) }, async () => ({})).catch((error: unknown) => error);
    release();
    await holding;

    expect(busy).toMatchObject({ code: 'IDEMPOTENCY_IN_PROGRESS', details: { retryAfter: IN_PROGRESS_LEASE_MS / 1000 - 12 } });
  });
});
