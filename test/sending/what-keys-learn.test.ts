/**
 * What sending-permission and test keys learn about an account's contacts
 * from its send endpoints (docs/security.md, "Keys"): that an address is
 * suppressed (RECIPIENT_SUPPRESSED), never whether it unsubscribed, bounced
 * or complained.
 */
import { describe, expect, it } from 'vitest';
import { createApiKey } from '#shared/accounts/api-keys.ts';
import { request } from '../support/api.ts';
import { addContact, createSender, suppressedFailure, uniqueAddresses } from './support.ts';

describe('a suppressed address, to a sending key and a test key', () => {
  it('is RECIPIENT_SUPPRESSED with one message whatever the reason, on every send endpoint, cc and bcc included', async () => {
    const sender = await createSender();
    const sendingKey = (await createApiKey({ accountId: sender.accountId, env: 'live', permission: 'sending' })).key;
    const [unsubscribed, bounced, complained, ok] = uniqueAddresses('unsub', 'bounced', 'complained', 'ok');
    await addContact(sender.key, unsubscribed, 'unsubscribed');
    await addContact(sender.key, bounced, 'bounced');
    await addContact(sender.key, complained, 'complained');
    const message = { from: sender.from, subject: 'Hi', content: '<p>Hi</p>' };

    for (const key of [sendingKey, sender.testKey]) {
      const send = await request('POST', '/api/email/send', { key, body: { ...message, recipients: [ok, unsubscribed, bounced], bcc: [complained] } });
      const batch = await request('POST', '/api/email/batch', {
        key,
        body: { emails: [unsubscribed, bounced, complained].map((address) => ({ ...message, recipients: [address] })) },
      });
      const otp = await request('POST', '/api/otp/send', { key, body: { from: sender.from, to: bounced, code: '1234' } });
      const transactional = await request('POST', '/api/transactional/send', { key, body: { ...message, to: complained } });

      expect(send.body.failedEmails).toEqual([unsubscribed, bounced, complained].map(suppressedFailure));
      expect(batch.body.results.map((result: { failedEmails: unknown[] }) => result.failedEmails)).toEqual(
        [unsubscribed, bounced, complained].map((address) => [suppressedFailure(address)]),
      );
      for (const single of [otp, transactional]) {
        expect([single.status, single.body.error, single.body.message]).toEqual([422, 'RECIPIENT_SUPPRESSED', suppressedFailure('').message]);
      }
    }
    expect(suppressedFailure('').message).not.toMatch(/unsubscri|bounce|complain|contact/i);
  });
});
