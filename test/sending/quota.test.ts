import { describe, expect, it } from 'vitest';
import { showAccount } from '#shared/accounts/service.ts';
import { request } from '../support/api.ts';
import { createSender, storedEmails, uniqueAddress } from './support.ts';

function send(key: string, from: string, recipients: string[], extra: Record<string, unknown> = {}) {
  return request('POST', '/api/email/send', { key, body: { from, recipients, subject: 'Hi', content: '<p>Hi</p>', ...extra } });
}

describe('monthly quota', () => {
  it('charges one email per recipient (never for cc or bcc) and reports what remains', async () => {
    const sender = await createSender({ quota: 10 });

    const first = await send(sender.key, sender.from, [uniqueAddress(), uniqueAddress(), uniqueAddress()], { cc: [uniqueAddress()], bcc: [uniqueAddress()] });
    const otp = await request('POST', '/api/otp/send', { key: sender.key, body: { from: sender.from, to: uniqueAddress(), code: '1234' } });
    const transactional = await request('POST', '/api/transactional/send', {
      key: sender.key,
      body: { from: sender.from, to: uniqueAddress(), subject: 'R', content: '<p>R</p>' },
    });
    const last = await send(sender.key, sender.from, [uniqueAddress()]);

    expect([first.status, otp.status, transactional.status, last.status]).toEqual([200, 200, 200, 200]);
    expect(first.body.emailsRemaining).toBe(7);
    expect(last.body.emailsRemaining).toBe(4);
    expect(await showAccount(sender.accountId)).toMatchObject({ quota: 10, emailsSent: 6, emailsRemaining: 4 });
  });

  it('answers QUOTA_EXCEEDED (403) once used up, and sends nothing of a send that does not fit', async () => {
    const sender = await createSender({ quota: 3 });

    const fits = await send(sender.key, sender.from, [uniqueAddress(), uniqueAddress()]);
    const tooMany = await send(sender.key, sender.from, [uniqueAddress(), uniqueAddress()]);
    const lastOne = await send(sender.key, sender.from, [uniqueAddress()]);
    const usedUp = await send(sender.key, sender.from, [uniqueAddress()]);
    const otp = await request('POST', '/api/otp/send', { key: sender.key, body: { from: sender.from, to: uniqueAddress(), code: '1234' } });

    expect([fits.status, tooMany.status, lastOne.status, usedUp.status, otp.status]).toEqual([200, 403, 200, 403, 403]);
    expect(tooMany.body).toEqual({ success: false, error: 'QUOTA_EXCEEDED', message: 'This send needs 2 emails but 1 of the monthly quota of 3 remain' });
    expect(usedUp.body).toEqual({ success: false, error: 'QUOTA_EXCEEDED', message: 'The monthly email quota of 3 is used up' });
    expect(lastOne.body.emailsRemaining).toBe(0);
    expect(await storedEmails(sender.domain)).toHaveLength(3);
    expect(await showAccount(sender.accountId)).toMatchObject({ emailsSent: 3, emailsRemaining: 0 });
  });

  it('does not charge suppressed recipients', async () => {
    const sender = await createSender({ quota: 5 });
    const gone = uniqueAddress('gone');
    const audience = (await request('POST', '/api/audiences', { key: sender.key, body: { name: 'A' } })).body.data;
    await request('POST', '/api/contacts', { key: sender.key, body: { email: gone, audienceId: audience.id, status: 'unsubscribed' } });

    const response = await send(sender.key, sender.from, [gone, uniqueAddress()]);

    expect(response.body.emailsRemaining).toBe(4);
    expect(await showAccount(sender.accountId)).toMatchObject({ emailsSent: 1 });
  });

  it('holds under concurrency: N sends racing for N-3 emails deliver exactly N-3', async () => {
    const N = 20;
    const sender = await createSender({ quota: N - 3 });
    const recipients = Array.from({ length: N }, () => uniqueAddress());

    const responses = await Promise.all(recipients.map((recipient) => send(sender.key, sender.from, [recipient])));

    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([...Array(N - 3).fill(200), ...Array(3).fill(403)]);
    expect(responses.filter((response) => response.status === 403).every((response) => response.body.error === 'QUOTA_EXCEEDED')).toBe(true);
    expect(await storedEmails(sender.domain)).toHaveLength(N - 3);
    expect(await showAccount(sender.accountId)).toMatchObject({ emailsSent: N - 3, emailsRemaining: 0 });
  });
});

describe('test keys', () => {
  it('validate, suppress and record like live keys, but reach no SES, charge nothing and report the live figure', async () => {
    const sender = await createSender({ quota: 10 });
    await send(sender.key, sender.from, [uniqueAddress(), uniqueAddress()]);
    const gone = uniqueAddress('gone');
    const audience = (await request('POST', '/api/audiences', { key: sender.key, body: { name: 'A' } })).body.data;
    await request('POST', '/api/contacts', { key: sender.key, body: { email: gone, audienceId: audience.id, status: 'bounced' } });
    const to = uniqueAddress();

    const sent = await send(sender.testKey, sender.from, [to, gone], { content: '<p>Hi <a href="{{unsubscribeUrl}}">x</a></p>' });
    const otp = await request('POST', '/api/otp/send', { key: sender.testKey, body: { from: sender.from, to, code: '1234' } });
    const transactional = await request('POST', '/api/transactional/send', {
      key: sender.testKey,
      body: { from: sender.from, to, subject: 'R', content: '<p>R</p>' },
    });
    const invalid = await send(sender.testKey, sender.from, ['broken']);
    const unverified = await send(sender.testKey, `news@elsewhere-${sender.domain}`, [to]);

    expect(sent.status).toBe(200);
    expect(sent.body).toEqual({
      success: true,
      message: 'Email sent to 1 of 2 recipients',
      successfulEmails: [{ recipient: to, trackingId: expect.stringMatching(/^svc_\d{13}_[A-Za-z0-9]+$/) }],
      failedEmails: [{ recipient: gone, error: 'RECIPIENT_SUPPRESSED', message: expect.any(String) }],
      recipientCount: 2,
      emailsRemaining: 8,
    });
    expect(otp.body).toEqual({
      success: true,
      message: 'OTP email sent',
      trackingId: expect.stringMatching(/^svc_/),
      emailId: expect.stringMatching(/^eml_/),
      queued: false,
    });
    expect(transactional.status).toBe(200);
    expect([invalid.status, invalid.body.error, unverified.status, unverified.body.error]).toEqual([422, 'INVALID_EMAIL', 403, 'SENDER_NOT_VERIFIED']);
    expect(await storedEmails(sender.domain)).toHaveLength(2);
    expect(await showAccount(sender.accountId)).toMatchObject({ emailsSent: 2, emailsRemaining: 8 });
    const record = await request('GET', `/api/emails/${otp.body.emailId}`, { key: sender.key });
    expect(record.body.data).toMatchObject({ status: 'sent', test: true, sesMessageId: null });
  });

  it('still work when the live quota is used up, since they use none', async () => {
    const sender = await createSender({ quota: 1 });
    await send(sender.key, sender.from, [uniqueAddress()]);

    const response = await send(sender.testKey, sender.from, [uniqueAddress()]);

    expect(response.status).toBe(200);
    expect(response.body.emailsRemaining).toBe(0);
  });
});
