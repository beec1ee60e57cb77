/**
 * A person's dashboard is limited by their session's own rate window
 * (docs/people.md), never by what the account's keys or sends used up: with
 * the free plan's 1,000 requests of the day spent by the account's key and
 * the monthly quota used up, the key is refused (429, and 403 QUOTA_EXCEEDED
 * on sending) while the signed-in admin still reads and changes everything.
 */
import { describe, expect, it } from 'vitest';
import { addMember } from '#shared/accounts/members.ts';
import { PLAN_LIMITS } from '#shared/accounts/plans.ts';
import { consumeRequest } from '#shared/accounts/rate-limit.ts';
import { request } from '../support/api.ts';
import { createSender, sendPlain, uniqueAddress } from '../sending/support.ts';
import { asPerson, runMailWorker, signIn } from './support.ts';

runMailWorker();

describe("a session when the account's limits are used up", () => {
  it("keeps the dashboard working after the key's daily requests and the monthly quota are spent", async () => {
    const account = await createSender({ plan: 'free', quota: 1 });
    const admin = uniqueAddress('admin');
    await addMember(account.accountId, { email: admin, role: 'admin' }, { type: 'operator', id: 'test' }, new Date());
    const person = await signIn(admin);
    expect((await sendPlain(account, [uniqueAddress()])).status).toBe(200);
    // The rest of the key's day, spent as its requests would spend it (1,000 requests through HTTP take 100 s at 10 a second).
    const { requestsPerDay } = PLAN_LIMITS.free;
    for (let spent = 0; spent < requestsPerDay!; spent++) {
      await consumeRequest(account.accountId, account.keyId, new Date(), { perSecond: requestsPerDay!, perDay: requestsPerDay });
    }

    const keyRead = await request('GET', '/api/stats', { key: account.key });
    const sent = await asPerson(person, 'GET', '/api/stats');
    const emails = await asPerson(person, 'GET', '/api/emails');
    const audience = await asPerson(person, 'POST', '/api/audiences', { body: { name: 'Still signed in' } });
    const sessionSend = await asPerson(person, 'POST', '/api/email/send', {
      body: { from: account.from, recipients: [uniqueAddress()], subject: 'Hi', content: '<p>Hi</p>' },
    });

    expect([keyRead.status, keyRead.body.error]).toEqual([429, 'RATE_LIMIT_EXCEEDED']);
    expect(keyRead.body.message).toBe('Daily request limit of 1000 reached for this API key');
    expect([sent.status, emails.status, audience.status]).toEqual([200, 200, 201]);
    expect(sent.body.data.usage).toMatchObject({ sent: 1, quota: 1 });
    // The session's own window, at the plan's limits: not the key's.
    expect(sent.headers.get('x-ratelimit-limit')).toBe(String(PLAN_LIMITS.free.requestsPerSecond));
    expect(Number(sent.headers.get('x-ratelimit-remaining'))).toBeGreaterThan(0);
    // Sending is what the quota limits, whoever asks.
    expect([sessionSend.status, sessionSend.body.error]).toEqual([403, 'QUOTA_EXCEEDED']);
  });
});
