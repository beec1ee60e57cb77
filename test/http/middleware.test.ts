import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTestAccount } from '../support/accounts.ts';
import { invoke, request } from '../support/api.ts';
import { db } from '#shared/platform/dynamodb/client.ts';
import { restrictKey } from '#shared/accounts/api-keys.ts';
import { admitRequest, consumeRequest } from '#shared/accounts/rate-limit.ts';
import { newId } from '#shared/platform/ids.ts';
import { buildHttpApiEvent, lambdaContext, loadHandler } from '#dev/local/http-event.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('authentication', () => {
  it('answers 401 UNAUTHORIZED for a missing, malformed, unknown or wrong-secret key', async () => {
    const { key } = await createTestAccount();
    const wrongSecret = key.slice(0, -4) + (key.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    const unknownAccount = `svc_live_${newId('acc').slice(4)}${newId('key').slice(4)}${'x'.repeat(32)}`;

    for (const candidate of [undefined, '', 'svc_live_short', 'Bearer abc', unknownAccount, wrongSecret, key.replace('svc_live_', 'svc_test_')]) {
      const response = await request('GET', '/api/audiences', candidate === undefined ? {} : { key: candidate });
      expect({ candidate, status: response.status }).toEqual({ candidate, status: 401 });
      expect(response.body).toEqual({ success: false, error: 'UNAUTHORIZED', message: expect.any(String) });
      expect(response.headers.get('x-ratelimit-limit')).toBeNull();
    }
    expect((await request('GET', '/api/audiences', { key })).status).toBe(200);
  });

  it('refuses a revoked key with 401 and a disabled key with 403 on the very next request', async () => {
    const revoked = await createTestAccount();
    const disabled = await createTestAccount();
    expect((await request('GET', '/api/audiences', { key: revoked.key })).status).toBe(200);
    expect((await request('GET', '/api/audiences', { key: disabled.key })).status).toBe(200);

    await restrictKey(revoked.accountId, revoked.keyId, 'revoke');
    await restrictKey(disabled.accountId, disabled.keyId, 'disable');

    const afterRevoke = await request('GET', '/api/audiences', { key: revoked.key });
    const afterDisable = await request('GET', '/api/audiences', { key: disabled.key });
    expect(afterRevoke.status).toBe(401);
    expect(afterRevoke.body.error).toBe('UNAUTHORIZED');
    expect(afterDisable.status).toBe(403);
    expect(afterDisable.body).toEqual({ success: false, error: 'FORBIDDEN', message: expect.any(String) });
  });

  it('lets a sending key reach no contact or audience endpoint', async () => {
    const { key } = await createTestAccount({ permission: 'sending' });

    const answers = await Promise.all([
      request('GET', '/api/audiences', { key }),
      request('POST', '/api/audiences', { key, body: { name: 'x' } }),
      request('GET', '/api/contacts', { key }),
      request('POST', '/api/contacts/bulk', { key, body: { audienceId: 'aud_x', contacts: [] } }),
    ]);

    for (const answer of answers) {
      expect(answer.status).toBe(403);
      expect(answer.body.error).toBe('FORBIDDEN');
    }
  });

  it('accepts test keys like live keys', async () => {
    const { key } = await createTestAccount({ env: 'test' });

    const response = await request('POST', '/api/audiences', { key, body: { name: 'Sandbox' } });

    expect(key.startsWith('svc_test_')).toBe(true);
    expect(response.status).toBe(201);
  });
});

describe('request bodies', () => {
  it('answers 400 INVALID_JSON for bad JSON and for bodies that are not objects', async () => {
    const { key } = await createTestAccount();

    for (const rawBody of ['{"name":', 'null', '[{"name":"x"}]', '"name"', '42', '']) {
      const response = await request('POST', '/api/audiences', { key, rawBody, headers: { 'content-type': 'application/json' } });
      expect({ rawBody, status: response.status, error: response.body.error }).toEqual({ rawBody, status: 400, error: 'INVALID_JSON' });
    }
    expect((await request('GET', '/api/audiences', { key })).body.pagination.total).toBe(0);
  });

  it('answers 415 for another media type and accepts JSON without a content type', async () => {
    const { key } = await createTestAccount();

    const form = await request('POST', '/api/audiences', { key, rawBody: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    const text = await request('POST', '/api/audiences', { key, rawBody: '{"name":"x"}', headers: { 'content-type': 'text/plain' } });
    const bare = await request('POST', '/api/audiences', { key, rawBody: '{"name":"bare"}' });
    const charset = await request('POST', '/api/audiences', { key, rawBody: '{"name":"cs"}', headers: { 'content-type': 'application/json; charset=utf-8' } });

    expect(form.status).toBe(415);
    expect(form.body).toMatchObject({ success: false, error: 'UNSUPPORTED_MEDIA_TYPE' });
    expect(text.status).toBe(415);
    expect(bare.status).toBe(201);
    expect(charset.status).toBe(201);
  });

  it('reads header names and the media type in any case when the handler is invoked directly', async () => {
    const { key } = await createTestAccount();
    const target = { handler: 'audiences/create', routeKey: 'POST /api/audiences' };
    const event = buildHttpApiEvent({ method: 'POST', url: '/api/audiences', body: Buffer.from('{"name":"Mixed case"}') }, target);
    // Another AWS service or a test calling the function may keep the case a client wrote, unlike API Gateway.
    const headers = { Host: 'local.test', 'X-API-Key': key, 'Content-Type': 'Application/JSON; Charset=UTF-8' };

    const result = await (await loadHandler(target.handler))({ ...event, headers }, lambdaContext(target.handler));

    expect(result.statusCode).toBe(201);
    expect(JSON.parse(result.body!)).toMatchObject({ success: true, data: { name: 'Mixed case' } });
  });

  it('answers 413 PAYLOAD_TOO_LARGE past the endpoint limit', async () => {
    const { key } = await createTestAccount();

    const response = await request('POST', '/api/audiences', { key, body: { name: 'x', description: 'y'.repeat(300 * 1024) } });

    expect(response.status).toBe(413);
    expect(response.body).toMatchObject({ success: false, error: 'PAYLOAD_TOO_LARGE' });
  });
});

describe('rate limits', () => {
  it('puts X-RateLimit headers on every authenticated answer, errors included', async () => {
    const { key } = await createTestAccount({ plan: 'pro' });

    const success = await request('GET', '/api/audiences', { key });
    const notFound = await request('GET', '/api/audiences/aud_00000000000000000000', { key });
    const invalid = await request('POST', '/api/audiences', { key, body: {} });

    for (const response of [success, notFound, invalid]) {
      expect(response.headers.get('x-ratelimit-limit')).toBe('50');
      expect(Number(response.headers.get('x-ratelimit-remaining'))).toBeLessThan(50);
      expect(Number(response.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000 - 1);
    }
  });

  it('admits exactly the per-second limit from concurrent requests in one second', async () => {
    const { accountId, keyId } = await createTestAccount({ plan: 'free' });
    const second = new Date(Math.floor(Date.now() / 1000) * 1000 + 300);

    const outcomes = await Promise.all(Array.from({ length: 30 }, () => consumeRequest(accountId, keyId, second, { perSecond: 10, perDay: 1000 })));
    const nextSecond = await consumeRequest(accountId, keyId, new Date(second.getTime() + 1000), { perSecond: 10, perDay: 1000 });

    expect(outcomes.filter((outcome) => outcome.admitted)).toHaveLength(10);
    const epochSecond = Math.floor(second.getTime() / 1000);
    expect(outcomes.filter((outcome) => !outcome.admitted)).toEqual(Array(20).fill({ admitted: false, exhausted: 'second', second: epochSecond }));
    expect(nextSecond).toEqual({ admitted: true, secondCount: 1, second: epochSecond + 1 });
  });

  it('counts a request stamped a second late in the window another instance already opened', async () => {
    const { accountId, keyId } = await createTestAccount({ plan: 'free' });
    const second = Math.floor(Date.now() / 1000) * 1000;

    const ahead = await consumeRequest(accountId, keyId, new Date(second + 1000), { perSecond: 2, perDay: 1000 });
    const late = await consumeRequest(accountId, keyId, new Date(second + 999), { perSecond: 2, perDay: 1000 });
    const over = await consumeRequest(accountId, keyId, new Date(second + 999), { perSecond: 2, perDay: 1000 });

    // Counted in, and refused by, the window that was open: the second after the one its clock read.
    const opened = second / 1000 + 1;
    expect(ahead).toEqual({ admitted: true, secondCount: 1, second: opened });
    expect(late).toEqual({ admitted: true, secondCount: 2, second: opened });
    expect(over).toEqual({ admitted: false, exhausted: 'second', second: opened });
  });

  it('stops at the per-day limit and says when to come back', async () => {
    const { accountId, keyId } = await createTestAccount({ plan: 'free' });
    const start = Date.parse('2026-11-21T23:59:00Z');

    const outcomes = [];
    for (let i = 0; i < 6; i++) outcomes.push(await consumeRequest(accountId, keyId, new Date(start + i * 1000), { perSecond: 10, perDay: 5 }));
    const nextDay = await consumeRequest(accountId, keyId, new Date(start + 120_000), { perSecond: 10, perDay: 5 });

    expect(outcomes.slice(0, 5).every((outcome) => outcome.admitted)).toBe(true);
    expect(outcomes[5]).toEqual({ admitted: false, exhausted: 'day', second: start / 1000 + 5 });
    expect(nextDay.admitted).toBe(true);
  });

  it('answers 429 with retryAfter and Retry-After past the plan limit', async () => {
    const { key, accountId, keyId } = await createTestAccount({ plan: 'free' });
    const now = new Date();
    for (let i = 0; i < 10; i++) await admitRequest({ accountId, keyId, env: 'live', permission: 'full', plan: 'free' }, now).catch(() => undefined);

    const answers = await Promise.all(Array.from({ length: 12 }, () => request('GET', '/api/audiences', { key })));
    const limited = answers.find((answer) => answer.status === 429);

    expect(limited).toBeDefined();
    expect(limited!.body).toEqual({ success: false, error: 'RATE_LIMIT_EXCEEDED', message: expect.any(String), retryAfter: expect.any(Number) });
    expect(limited!.headers.get('retry-after')).toBe(String(limited!.body.retryAfter));
    expect(limited!.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(limited!.headers.get('x-ratelimit-limit')).toBe('10');
  });
});

describe('routing and failures', () => {
  it('answers unknown routes with 404 NOT_FOUND and wrong methods with 405', async () => {
    const { key } = await createTestAccount();

    const unknown = await request('GET', '/api/nothing-here', { key });
    const wrongMethod = await request('PUT', '/api/contacts', { key });

    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ success: false, error: 'NOT_FOUND' });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.body).toMatchObject({ success: false, error: 'METHOD_NOT_ALLOWED' });
    expect(wrongMethod.headers.get('allow')).toContain('POST');
  });

  it('turns an unexpected failure into 500 INTERNAL_ERROR without leaking it', async () => {
    const { key } = await createTestAccount();
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const send = db.send.bind(db);
    // A DynamoDB outage after authentication: DynamoDB Local cannot fail on demand.
    vi.spyOn(db, 'send').mockImplementation(((command: { constructor: { name: string } }, ...rest: unknown[]) => {
      if (command.constructor.name === 'QueryCommand') {
        return Promise.reject(Object.assign(new Error(`boom ${key} secret-table-arn`), { name: 'InternalServerError' }));
      }
      return (send as (...args: unknown[]) => unknown)(command, ...rest);
    }) as typeof db.send);

    const response = await invoke('audiences/list', { headers: { 'x-api-key': key } });

    expect(response.statusCode).toBe(500);
    const body = JSON.parse(response.body!);
    expect(body).toEqual({ success: false, error: 'INTERNAL_ERROR', message: expect.any(String) });
    expect(response.body).not.toContain('boom');
    expect(response.body).not.toContain(key);
    expect(logged).toHaveBeenCalled();
    expect(logged.mock.calls.flat().join(' ')).not.toContain(key.slice(9));
  });
});
