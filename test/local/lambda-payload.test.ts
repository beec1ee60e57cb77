/**
 * The local server refuses what Lambda would: an event over 6 MB as JSON
 * (the body JSON-escaped or base64, headers and context included) never
 * reaches a function, and API Gateway answers for it. A body over a route's
 * limit that Lambda still takes gets the function's 413 envelope, the limit
 * counting the body as the event carries it, so a body within a route's
 * limit always fits in Lambda, whatever it holds.
 */
import { describe, expect, it } from 'vitest';
import { buildHttpApiEvent, invocationPayloadBytes, LAMBDA_MAX_PAYLOAD_BYTES } from '#dev/local/http-event.ts';
import { DEFAULT_MAX_BODY_BYTES } from '#shared/platform/http/routes.ts';
import { email } from '#functions/email/contract.ts';

const EMAIL_SEND_MAX_BODY_BYTES = email.send.maxBodyBytes;
import { createTestAccount } from '../support/accounts.ts';
import { request, startApi } from '../support/api.ts';

const API_GATEWAY_413 = { message: 'Request Entity Too Large' };

/** Raw HTTP: API Gateway's own answer is not an operation of docs/openapi.json, which `request` checks answers against. */
async function post(path: string, body: Buffer, headers: Record<string, string> = {}) {
  const { url } = await startApi();
  const response = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  return { status: response.status, body: await response.json() };
}

/** A JSON body `{"subject":"<filler>"}` whose size as the event carries it (JSON-escaped) is exactly `carried` bytes. */
function bodyCarrying(carried: number, unit = 'a'): string {
  // The body's four quotes take two bytes each once escaped; `unit` its own escaped size.
  const overhead = JSON.stringify('{"subject":""}').length - 2;
  const unitSize = JSON.stringify(unit).length - 2;
  const units = Math.floor((carried - overhead) / unitSize);
  const pad = 'a'.repeat(carried - overhead - units * unitSize);
  return `{"subject":"${unit.repeat(units)}${pad}"}`;
}

const escapedSize = (text: string) => JSON.stringify(text).length - 2;

describe("a route's body limit, counted as the Lambda event carries the body", () => {
  it('a body carried at exactly the limit reaches validation; one byte more is the 413 envelope', async () => {
    const { key } = await createTestAccount();
    const atLimit = bodyCarrying(EMAIL_SEND_MAX_BODY_BYTES);
    const overLimit = bodyCarrying(EMAIL_SEND_MAX_BODY_BYTES + 1);

    const reached = await request('POST', '/api/email/send', { key, rawBody: atLimit, headers: { 'content-type': 'application/json' } });
    const refused = await request('POST', '/api/email/send', { key, rawBody: overLimit, headers: { 'content-type': 'application/json' } });

    expect(escapedSize(atLimit)).toBe(EMAIL_SEND_MAX_BODY_BYTES);
    expect(reached.status).toBe(400);
    expect(reached.body).toMatchObject({ error: 'MISSING_REQUIRED_FIELD' });
    expect(refused).toMatchObject({ status: 413, body: { success: false, error: 'PAYLOAD_TOO_LARGE' } });
  });

  it('escaping counts: a body under the limit in bytes but over it escaped is the 413 envelope, not a Lambda refusal', async () => {
    const { key } = await createTestAccount();
    // Every `\\"` in the body (two bytes) is four in the event.
    const body = bodyCarrying(DEFAULT_MAX_BODY_BYTES + 2, '\\"');

    const refused = await request('POST', '/api/templates', { key, rawBody: body, headers: { 'content-type': 'application/json' } });

    expect(Buffer.byteLength(body)).toBeLessThan(DEFAULT_MAX_BODY_BYTES);
    expect(refused).toMatchObject({ status: 413, body: { success: false, error: 'PAYLOAD_TOO_LARGE' } });
  });

  it('the largest body email/send takes, escaped at worst (control characters, six bytes each), still fits in a Lambda event', () => {
    const worst = bodyCarrying(EMAIL_SEND_MAX_BODY_BYTES, '\u0001');
    const event = buildHttpApiEvent(
      {
        method: 'POST',
        url: '/api/email/send',
        headers: { 'content-type': 'application/json', 'x-api-key': 'svc_live_'.padEnd(64, 'x'), 'user-agent': 'x'.repeat(2048) },
        body: Buffer.from(worst),
      },
      { handler: 'email/send', routeKey: 'POST /api/email/send' },
    );

    expect(invocationPayloadBytes(event)).toBeLessThanOrEqual(LAMBDA_MAX_PAYLOAD_BYTES);
  });
});

describe("Lambda's 6 MB invocation payload", () => {
  it('an event just under 6 MB reaches the function; just over, API Gateway answers 413 with its own body', async () => {
    // /nowhere: the fallback function, which reads no body, so only the event's size decides.
    const probe = Buffer.alloc(1000, 0x61);
    const probeEvent = buildHttpApiEvent({ method: 'POST', url: '/nowhere', body: probe }, { handler: 'system/fallback', routeKey: '$default' });
    // Headers fetch adds and the request id vary by a few bytes: a margin of 2 KB on each side.
    const room = LAMBDA_MAX_PAYLOAD_BYTES - invocationPayloadBytes(probeEvent) + probe.length - 1024;

    const under = await post('/nowhere', Buffer.alloc(room - 2048, 0x61));
    const over = await post('/nowhere', Buffer.alloc(room + 2048, 0x61));

    expect(under).toMatchObject({ status: 404, body: { error: 'NOT_FOUND' } });
    expect(over).toEqual({ status: 413, body: API_GATEWAY_413 });
  });

  it('counts the body escaped: 3.5 MB of quotes is 7 MB in the event, refused before any function runs', async () => {
    const quotes = Buffer.alloc(3.5 * 1024 * 1024, 0x22);

    const refused = await post('/nowhere', quotes);

    expect(refused).toEqual({ status: 413, body: API_GATEWAY_413 });
  });

  it('counts a body that is not UTF-8 as base64: 4.6 MB of binary is over 6 MB in the event', async () => {
    const binary = Buffer.alloc(4.6 * 1024 * 1024, 0xff);

    const refused = await post('/nowhere', binary, { 'content-type': 'application/octet-stream' });

    expect(refused).toEqual({ status: 413, body: API_GATEWAY_413 });
  });
});
