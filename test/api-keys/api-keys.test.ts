/**
 * API keys over HTTP (issue 30, decisions "People, sessions and the
 * dashboard"): the secret shown once, lists that show only its hint, a
 * disabled key refused (403) and a revoked one unknown (401) from their next
 * request, keys bound to one sending domain, and who may manage keys.
 */
import { describe, expect, it } from 'vitest';
import { localVerifier, verifyDomain } from '#shared/domains/verification.ts';
import { randomBase62 } from '#shared/platform/ids.ts';
import { request } from '../support/api.ts';
import { createTestAccount } from '../support/accounts.ts';
import { createSender, uniqueAddress, type Sender } from '../sending/support.ts';

async function createKey(key: string, body: Record<string, unknown>) {
  const response = await request('POST', '/api/api-keys', { key, body });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.data as { id: string; key: string; name: string; permission: string; env: string; domain: string | null; createdAt: string };
}

const listKeys = async (key: string) => (await request('GET', '/api/api-keys', { key })).body;
const audiences = (key: string) => request('GET', '/api/audiences', { key });

describe('API keys over HTTP', () => {
  it('creates a key whose secret only the creation shows; lists it by its hint, never the secret nor its hash', async () => {
    const account = await createTestAccount();

    const made = await createKey(account.key, { name: 'CI server' });
    const used = await audiences(made.key);
    const listed = await listKeys(account.key);

    expect(made).toEqual({
      id: expect.stringMatching(/^key_/),
      name: 'CI server',
      permission: 'full',
      env: 'live',
      domain: null,
      key: expect.stringMatching(/^svc_live_[0-9A-Za-z]+$/),
      createdAt: expect.any(String),
    });
    expect(used.status).toBe(200);
    expect(listed.keys.find((key: { id: string }) => key.id === made.id)).toEqual({
      id: made.id,
      name: 'CI server',
      permission: 'full',
      env: 'live',
      domain: null,
      disabled: false,
      hint: made.key.slice(-4),
      createdAt: made.createdAt,
      lastUsedAt: expect.any(String),
    });
    expect(listed.pagination).toEqual({ total: 2, page: 1, limit: 20, pages: 1 });
    expect(JSON.stringify(listed)).not.toContain(made.key.slice(9, -4));
    expect(JSON.stringify(listed)).not.toMatch(/[0-9a-f]{64}/);
  });

  it('refuses a disabled key (403) and a revoked one (401) from their very next request; revoked keys are no longer listed', async () => {
    const account = await createTestAccount();
    const [toDisable, toRevoke] = await Promise.all([createKey(account.key, { name: 'A' }), createKey(account.key, { name: 'B' })]);
    await Promise.all([audiences(toDisable.key), audiences(toRevoke.key)]);

    const disabled = await request('PATCH', `/api/api-keys/${toDisable.id}`, { key: account.key, body: { disabled: true, name: 'A (off)' } });
    const refused = await audiences(toDisable.key);
    const revoked = await request('DELETE', `/api/api-keys/${toRevoke.id}`, { key: account.key });
    const unknown = await audiences(toRevoke.key);
    const listed = await listKeys(account.key);
    const enabled = await request('PATCH', `/api/api-keys/${toDisable.id}`, { key: account.key, body: { disabled: false } });
    const again = await audiences(toDisable.key);
    const revokedTwice = await request('DELETE', `/api/api-keys/${toRevoke.id}`, { key: account.key });
    const changedRevoked = await request('PATCH', `/api/api-keys/${toRevoke.id}`, { key: account.key, body: { name: 'back' } });

    expect(disabled.body.data).toMatchObject({ id: toDisable.id, name: 'A (off)', disabled: true });
    expect([refused.status, refused.body.error]).toEqual([403, 'FORBIDDEN']);
    expect(revoked.body).toEqual({ success: true, message: 'API key revoked' });
    expect([unknown.status, unknown.body.error]).toEqual([401, 'UNAUTHORIZED']);
    expect(listed.keys.map((key: { id: string }) => key.id).sort()).toEqual([account.keyId, toDisable.id].sort());
    expect(enabled.body.data.disabled).toBe(false);
    expect(again.status).toBe(200);
    expect([revokedTwice.status, revokedTwice.body.error]).toEqual([404, 'API_KEY_NOT_FOUND']);
    expect([changedRevoked.status, changedRevoked.body.error]).toEqual([404, 'API_KEY_NOT_FOUND']);
  });

  it('lets a key revoke itself (rotation), after which it is refused', async () => {
    const account = await createTestAccount();
    const next = await createKey(account.key, { name: 'next' });

    const revoked = await request('DELETE', `/api/api-keys/${account.keyId}`, { key: account.key });

    expect(revoked.status).toBe(200);
    expect((await audiences(account.key)).status).toBe(401);
    expect((await audiences(next.key)).status).toBe(200);
  });

  it("refuses sending keys and another account's ids, and lets a test key manage test keys only", async () => {
    const account = await createTestAccount();
    const other = await createTestAccount();
    const sending = await createKey(account.key, { name: 'mailer', permission: 'sending' });
    const test = await createKey(account.key, { name: 'tests', env: 'test' });

    const bySending = await Promise.all([
      request('GET', '/api/api-keys', { key: sending.key }),
      request('POST', '/api/api-keys', { key: sending.key, body: { name: 'x' } }),
      request('DELETE', `/api/api-keys/${account.keyId}`, { key: sending.key }),
    ]);
    const byOther = await Promise.all([
      request('PATCH', `/api/api-keys/${account.keyId}`, { key: other.key, body: { disabled: true } }),
      request('DELETE', `/api/api-keys/${account.keyId}`, { key: other.key }),
    ]);
    const byTest = await Promise.all([
      request('POST', '/api/api-keys', { key: test.key, body: { name: 'live from test' } }),
      request('PATCH', `/api/api-keys/${account.keyId}`, { key: test.key, body: { disabled: true } }),
      request('DELETE', `/api/api-keys/${account.keyId}`, { key: test.key }),
    ]);
    const testMade = await createKey(test.key, { name: 'another test key', env: 'test' });

    expect(bySending.map((response) => [response.status, response.body.error])).toEqual(Array(3).fill([403, 'FORBIDDEN']));
    expect(byOther.map((response) => [response.status, response.body.error])).toEqual(Array(2).fill([404, 'API_KEY_NOT_FOUND']));
    expect(byTest.map((response) => [response.status, response.body.error])).toEqual(Array(3).fill([403, 'FORBIDDEN']));
    expect(byTest[0]!.body.field).toBe('env');
    expect(testMade.key).toMatch(/^svc_test_/);
    expect((await audiences(account.key)).status).toBe(200);
  });

  it('refuses a bad name, a domain on a full key, and a domain that is not a verified domain of the account, on the field', async () => {
    const sender = await createSender();
    const other = await createSender();
    const pending = `p${randomBase62(8).toLowerCase()}.example.com`;
    await request('POST', '/api/domains', { key: sender.key, body: { domain: pending } });

    const answers = await Promise.all(
      [
        {},
        { name: '   ' },
        { name: 'x'.repeat(51) },
        { name: 'k', permission: 'admin' },
        { name: 'k', domain: sender.domain },
        { name: 'k', permission: 'sending', domain: pending },
        { name: 'k', permission: 'sending', domain: other.domain },
        { name: 'k', permission: 'sending', domain: 'not a domain' },
      ].map((body) => request('POST', '/api/api-keys', { key: sender.key, body })),
    );

    expect(answers.map((response) => [response.status, response.body.error, response.body.field])).toEqual([
      [400, 'MISSING_REQUIRED_FIELD', 'name'],
      [400, 'MISSING_REQUIRED_FIELD', 'name'],
      [422, 'VALIDATION_ERROR', 'name'],
      [422, 'VALIDATION_ERROR', 'permission'],
      [422, 'VALIDATION_ERROR', 'domain'],
      [422, 'VALIDATION_ERROR', 'domain'],
      [422, 'VALIDATION_ERROR', 'domain'],
      [422, 'VALIDATION_ERROR', 'domain'],
    ]);
  });
});

describe('a sending key bound to one domain', () => {
  /** A sender with a second verified domain, and a sending key bound to the first. */
  async function boundSender(): Promise<{ sender: Sender; bound: string; elsewhere: string }> {
    const sender = await createSender();
    const second = `o${randomBase62(10).toLowerCase()}.example.com`;
    await verifyDomain(sender.accountId, second, localVerifier);
    const { key } = await createKey(sender.key, { name: 'bound', permission: 'sending', domain: sender.domain.toUpperCase() });
    return { sender, bound: key, elsewhere: `news@${second}` };
  }

  /** One send from `from` on every send path a sending key reaches: email, batch, transactional, OTP. */
  function sendEverywhere(key: string, from: string) {
    const to = uniqueAddress();
    const message = { from, recipients: [to], subject: 'Hi', content: '<p>Hi</p>' };
    return Promise.all([
      request('POST', '/api/email/send', { key, body: message }),
      request('POST', '/api/email/batch', { key, body: { emails: [message] } }),
      request('POST', '/api/transactional/send', { key, body: { from, to, subject: 'Receipt', content: '<p>Paid</p>' } }),
      request('POST', '/api/otp/send', { key, body: { from, to, code: '123456' } }),
    ]);
  }

  it('sends from its domain on every send path, and from no other verified domain of the account (403 FORBIDDEN on from)', async () => {
    const { sender, bound, elsewhere } = await boundSender();

    const own = await sendEverywhere(bound, `Ada <ada@${sender.domain}>`);
    const refused = await sendEverywhere(bound, elsewhere);
    const unbound = await sendEverywhere(sender.key, elsewhere);

    expect(own.map((response) => response.status)).toEqual([200, 200, 200, 200]);
    const [send, batch, transactional, otp] = refused;
    for (const response of [send, transactional, otp]) {
      expect(response!.status).toBe(403);
      expect(response!.body).toMatchObject({ success: false, error: 'FORBIDDEN', field: 'from' });
    }
    expect(batch!.body.results).toEqual([expect.objectContaining({ index: 0, success: false, error: 'FORBIDDEN', field: 'emails[0].from' })]);
    expect(unbound.map((response) => response.status)).toEqual([200, 200, 200, 200]);
  });

  it('cannot send or test a broadcast at all: those take a full key', async () => {
    const { sender, bound, elsewhere } = await boundSender();
    const audience = (await request('POST', '/api/audiences', { key: sender.key, body: { name: 'Everyone' } })).body.data;
    const broadcast = (
      await request('POST', '/api/broadcasts', { key: sender.key, body: { audienceId: audience.id, from: elsewhere, subject: 'News', content: '<p>News</p>' } })
    ).body.data;

    const answers = await Promise.all([
      request('POST', `/api/broadcasts/${broadcast.id}/send`, { key: bound, body: {} }),
      request('POST', `/api/broadcasts/${broadcast.id}/test`, { key: bound, body: { to: [uniqueAddress()] } }),
    ]);

    expect(answers.map((response) => [response.status, response.body.error])).toEqual([
      [403, 'FORBIDDEN'],
      [403, 'FORBIDDEN'],
    ]);
  });
});
