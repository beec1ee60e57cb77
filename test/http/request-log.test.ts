/**
 * What a request leaves in the log: its context on every line, one access
 * line, and nothing of the key or the email it carried, whether it succeeds
 * or fails.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setFaultHook } from '../support/dynamo-faults.ts';
import { invoke, request } from '../support/api.ts';
import { createTestAccount } from '../support/accounts.ts';
import { captureConsole } from '../support/console.ts';
import { createSender, uniqueAddress } from '../sending/support.ts';

const lines = captureConsole();

afterEach(() => {
  setFaultHook(undefined);
  vi.restoreAllMocks();
});

type Entry = Record<string, unknown>;

/** Every captured line, parsed: each must be one JSON object. */
function entries(): Entry[] {
  return lines.map((line) => JSON.parse(line) as Entry);
}

function accessLines(): Entry[] {
  return entries().filter((entry) => entry.message === 'request');
}

function sendBody(from: string, to: string) {
  return {
    from,
    recipients: [to],
    subject: 'Quarterly invoice for Ann Example',
    content: '<p>Secret body text: your invoice total is 1234.56</p>',
  };
}

/** No line holds the key, the recipient's address, the subject or any of the HTML body. */
function expectNothingSensitive(secrets: { key: string; recipient: string; subject: string; html: string }) {
  const text = lines.join('\n');
  expect(text).not.toContain(secrets.key);
  expect(text).not.toContain(secrets.key.slice('svc_live_'.length));
  expect(text).not.toContain(secrets.recipient);
  expect(text).not.toContain(secrets.recipient.split('@')[0]);
  expect(text).not.toContain(secrets.subject);
  expect(text).not.toContain('Secret body text');
}

describe('request logs', () => {
  it('write one access line per request with route, method, status, duration, request id and account id', async () => {
    const { key, accountId } = await createTestAccount();

    const created = await invoke('audiences/create', {
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Logged' }),
      requestContext: { requestId: 'apigw-request-1' },
    });

    expect(created.statusCode).toBe(201);
    expect(accessLines()).toEqual([
      {
        level: 'info',
        message: 'request',
        time: expect.any(String),
        requestId: 'apigw-request-1',
        lambdaRequestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        accountId,
        route: 'POST /api/audiences',
        method: 'POST',
        status: 201,
        durationMs: expect.any(Number),
      },
    ]);
  });

  it('log a request that fails before authentication without an account, and never the key it tried', async () => {
    const { key } = await createTestAccount();
    const revokedLooking = `${key.slice(0, -4)}ZZZZ`;

    const response = await request('GET', '/api/audiences', { key: revokedLooking });

    expect(response.status).toBe(401);
    const [access] = accessLines();
    expect(access).toMatchObject({ route: 'GET /api/audiences', status: 401, requestId: expect.any(String) });
    expect(access).not.toHaveProperty('accountId');
    expect(lines.join('\n')).not.toContain(revokedLooking.slice('svc_live_'.length));
  });

  it('log an unmatched path by its route key, not its path', async () => {
    const address = uniqueAddress('path');

    const response = await request('DELETE', `/api/contacts/email/${address}`);

    expect(response.status).toBe(405);
    expect(accessLines()).toEqual([expect.objectContaining({ route: '$default', method: 'DELETE', status: 405 })]);
    expect(lines.join('\n')).not.toContain(address);
  });

  it('keep the key, the recipient, the subject and the body of a send out of every line', async () => {
    const sender = await createSender();
    const recipient = uniqueAddress('ann');
    const body = sendBody(sender.from, recipient);

    const response = await request('POST', '/api/email/send', { key: sender.key, body });

    expect(response.status).toBe(200);
    expect(accessLines()).toEqual([expect.objectContaining({ route: 'POST /api/email/send', status: 200, accountId: sender.accountId })]);
    expectNothingSensitive({ key: sender.key, recipient, subject: body.subject, html: body.content });
  });

  it('log an unexpected failure of a send with its context, masked, and answer it with the fixed message only', async () => {
    const sender = await createSender();
    const recipient = uniqueAddress('bob');
    const body = sendBody(sender.from, recipient);
    // The quota charge fails before the message leaves. An SDK error may quote what it
    // was given; this one quotes the key and the recipient.
    setFaultHook((command, input) =>
      command === 'UpdateItemCommand' && JSON.stringify(input).includes('#USAGE')
        ? { error: Object.assign(new Error(`Service unavailable for ${recipient} (${sender.key})`), { name: 'ServiceUnavailable' }) }
        : undefined,
    );

    const response = await request('POST', '/api/email/send', { key: sender.key, body });

    expect(response.status).toBe(500);
    expect(response.body).toEqual({ success: false, error: 'INTERNAL_ERROR', message: expect.any(String) });
    expect(JSON.stringify(response.body)).not.toContain('Service unavailable');
    const failure = entries().find((entry) => entry.message === 'unhandled error');
    expect(failure).toMatchObject({
      level: 'error',
      requestId: expect.any(String),
      accountId: sender.accountId,
      route: 'POST /api/email/send',
      error: { name: 'ServiceUnavailable', message: expect.stringContaining('[redacted]@example.org') },
    });
    expect(accessLines()).toEqual([expect.objectContaining({ status: 500, accountId: sender.accountId, requestId: failure!.requestId })]);
    expectNothingSensitive({ key: sender.key, recipient, subject: body.subject, html: body.content });
  });

  it('keep each request’s context to its own lines when requests run at once', async () => {
    const accounts = await Promise.all([createTestAccount(), createTestAccount(), createTestAccount()]);

    await Promise.all(accounts.flatMap(({ key }) => [1, 2].map(() => request('GET', '/api/audiences', { key }))));

    const byRequest = new Map(accessLines().map((entry) => [entry.requestId, entry.accountId]));
    expect(byRequest.size).toBe(6);
    expect([...byRequest.values()].sort()).toEqual(accounts.flatMap(({ accountId }) => [accountId, accountId]).sort());
  });
});
