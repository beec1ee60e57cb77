/**
 * The send path's guards under racing requests, beyond the single-recipient
 * races of test/sending: sends of several recipients against the quota, the
 * OTP window racing idempotency keys, and the per-second rate limit over HTTP.
 */
import { describe, expect, it } from 'vitest';
import { showAccount } from '#shared/accounts/service.ts';
import { createTestAccount } from '../support/accounts.ts';
import { request, type ApiResponse } from '../support/api.ts';
import { createSender, sendPlain, storedEmails, uniqueAddress } from '../sending/support.ts';

describe('monthly quota under racing sends of several recipients', () => {
  it('never goes past the quota by even one, and charges each send all or nothing', async () => {
    const sender = await createSender({ quota: 16 });
    const sends = Array.from({ length: 10 }, () => [uniqueAddress(), uniqueAddress(), uniqueAddress()]);

    const responses = await Promise.all(sends.map((recipients) => sendPlain(sender, recipients)));

    const sent = responses.filter((response) => response.status === 200);
    expect(responses.filter((response) => response.status !== 200).map((response) => response.body.error)).toEqual(Array(5).fill('QUOTA_EXCEEDED'));
    expect(sent).toHaveLength(5);
    expect(sent.every((response) => response.body.successfulEmails.length === 3)).toBe(true);
    expect(await storedEmails(sender.domain)).toHaveLength(15);
    expect(await showAccount(sender.accountId)).toMatchObject({ emailsSent: 15, emailsRemaining: 1 });
  });
});

describe('OTP window and idempotency keys racing together', () => {
  it('send once per key and never more than the window allows', async () => {
    const sender = await createSender({ plan: 'pro' });
    const to = uniqueAddress();
    // Eight distinct keys, each sent twice at once: one request per key runs, and five of those fit the pro plan's window.
    const requests = Array.from({ length: 16 }, (_, index) => ({ from: sender.from, to, code: `c${index % 8}`, idempotencyKey: `key-${index % 8}` }));

    const responses = await Promise.all(requests.map((body) => request('POST', '/api/otp/send', { key: sender.key, body })));

    const byKey = new Map<string, ApiResponse[]>();
    for (const [index, body] of requests.entries()) byKey.set(body.idempotencyKey, [...(byKey.get(body.idempotencyKey) ?? []), responses[index]!]);
    for (const answers of byKey.values()) {
      expect(new Set(answers.filter((answer) => answer.status === 200).map((answer) => answer.body.emailId)).size).toBeLessThanOrEqual(1);
    }
    expect(responses.filter((response) => ![200, 409, 429].includes(response.status)).map((response) => response.body)).toEqual([]);
    const sentKeys = [...byKey.values()].filter((answers) => answers.some((answer) => answer.status === 200));
    expect(sentKeys).toHaveLength(5);
    expect(await storedEmails(sender.domain)).toHaveLength(sentKeys.length);
  });

  it('refuse a different body under a racing key without sending it', async () => {
    const sender = await createSender();
    const to = uniqueAddress();
    const bodies = Array.from({ length: 12 }, (_, index) => ({
      from: sender.from,
      to,
      subject: 'Receipt',
      content: `<p>Order ${index % 2}</p>`,
      idempotencyKey: 'order',
    }));

    const responses = await Promise.all(bodies.map((body) => request('POST', '/api/transactional/send', { key: sender.key, body })));

    const emails = await storedEmails(sender.domain);
    expect(emails).toHaveLength(1);
    const winner = emails[0]!.body.html!.includes('Order 0') ? 0 : 1;
    responses.forEach((response, index) => {
      if (index % 2 === winner) expect([200, 409]).toContain(response.status);
      else expect([422, 409]).toContain(response.status);
    });
    expect(responses.filter((response) => response.status === 422).every((response) => response.body.error === 'IDEMPOTENCY_KEY_REUSED')).toBe(true);
  });
});

describe('per-second rate limit over HTTP', () => {
  it('admits no more than the plan limit in any one-second window', async () => {
    const { key } = await createTestAccount({ plan: 'free' });

    const responses = await Promise.all(Array.from({ length: 40 }, () => request('GET', '/api/audiences', { key })));

    const admittedPerWindow = new Map<string, number>();
    for (const response of responses.filter((answer) => answer.status === 200)) {
      const reset = response.headers.get('x-ratelimit-reset')!;
      admittedPerWindow.set(reset, (admittedPerWindow.get(reset) ?? 0) + 1);
    }
    expect(Math.max(...admittedPerWindow.values())).toBeLessThanOrEqual(10);
    const refused = responses.filter((response) => response.status !== 200);
    expect(refused.length).toBeGreaterThanOrEqual(40 - 10 * admittedPerWindow.size);
    // 1 second, or 2 for a request refused by the next window, which another request had already opened.
    expect(refused.every((response) => response.status === 429 && ['1', '2'].includes(response.headers.get('retry-after') ?? ''))).toBe(true);
  });
});
