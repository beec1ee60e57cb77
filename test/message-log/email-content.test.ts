/**
 * What each message held, kept as it is handed to SES and answered by GET
 * /api/emails/:id/content: from every send path, for test keys too, to the
 * account's keys and people only.
 */
import { describe, expect, it } from 'vitest';
import { request } from '../support/api.ts';
import { createTestAccount } from '../support/accounts.ts';
import { asPerson, signedInCookie } from '../people/support.ts';
import { addContact, createSender, uniqueAddress, uniqueAddresses, type Sender } from '../sending/support.ts';
import { createBroadcast, drainBroadcastQueue, mixedAudience, sendWith } from '../broadcasts/support.ts';

async function contentOf(key: string, id: string) {
  return request('GET', `/api/emails/${encodeURIComponent(id)}/content`, { key });
}

/** The email id a send answered as a tracking id (the record knows both). */
async function emailIdOf(key: string, trackingId: string): Promise<string> {
  return (await request('GET', `/api/emails/${trackingId}`, { key })).body.data.id;
}

async function expectKept(sender: Pick<Sender, 'key'>, trackingId: string, expected: Record<string, unknown>) {
  const response = await contentOf(sender.key, trackingId);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  expect(response.body.data).toMatchObject(expected);
}

describe('GET /api/emails/:id/content', { timeout: 60_000 }, () => {
  it('answers what the send handed to SES: its addresses, the headers Postlane set, both parts, and attachments by name, type and size only', async () => {
    const sender = await createSender();
    const [ann, carl, reply] = uniqueAddresses('ann', 'carl', 'reply');
    const sent = await request('POST', '/api/email/send', {
      key: sender.key,
      body: {
        from: `Acme <${sender.from}>`,
        recipients: [ann],
        cc: [carl],
        replyTo: reply,
        subject: 'Hello {{name}}',
        content: '<p>Hi {{name}}</p><script>document.title = "owned"</script>',
        variables: { name: 'Ann' },
        attachments: [{ filename: 'notes.txt', contentType: 'text/plain', content: Buffer.from('hello').toString('base64') }],
      },
    });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const { trackingId } = sent.body.successfulEmails[0];
    const emailId = await emailIdOf(sender.key, trackingId);

    const byEmailId = await contentOf(sender.key, emailId);
    expect(byEmailId.status).toBe(200);
    expect(byEmailId.body).toEqual({
      success: true,
      data: {
        subject: 'Hello Ann',
        from: `Acme <${sender.from}>`,
        to: [ann],
        cc: [carl],
        bcc: [],
        replyTo: [reply],
        headers: [],
        text: expect.stringContaining('Hi Ann'),
        // As the sender wrote it: showing it safely is the reader's part (the dashboard's sandboxed frame).
        html: '<p>Hi Ann</p><script>document.title = "owned"</script>',
        attachments: [{ filename: 'notes.txt', contentType: 'text/plain', size: 5 }],
      },
    });
    expect((await contentOf(sender.key, trackingId)).body).toEqual(byEmailId.body);
  });

  it('shows the List-Unsubscribe headers of a message that carries its reader’s unsubscribe link', async () => {
    const sender = await createSender();
    const ann = uniqueAddress('ann');
    const sent = await request('POST', '/api/email/send', {
      key: sender.key,
      body: { from: sender.from, recipients: [ann], subject: 'News', content: '<p>News <a href="{{unsubscribeUrl}}">Unsubscribe</a></p>' },
    });
    const { trackingId } = sent.body.successfulEmails[0];
    const { body } = await contentOf(sender.key, trackingId);
    expect(body.data.headers).toEqual([
      { name: 'List-Unsubscribe', value: expect.stringMatching(/^<https?:\/\/.+>$/) },
      { name: 'List-Unsubscribe-Post', value: 'List-Unsubscribe=One-Click' },
    ]);
  });

  it('is kept for a test key’s message, recorded as a test', async () => {
    const sender = await createSender();
    const ann = uniqueAddress('ann');
    const sent = await request('POST', '/api/email/send', {
      key: sender.testKey,
      body: { from: sender.from, recipients: [ann], subject: 'Trial', content: '<p>Trial</p>' },
    });
    const { trackingId } = sent.body.successfulEmails[0];
    expect((await request('GET', `/api/emails/${trackingId}`, { key: sender.key })).body.data.test).toBe(true);
    await expectKept(sender, trackingId, { subject: 'Trial', to: [ann], html: '<p>Trial</p>' });
  });

  it('is kept by every send path: batch, OTP, transactional, a broadcast’s test copy and its messages', async () => {
    const sender = await createSender();
    const [ann, bob, cy, dee] = uniqueAddresses('ann', 'bob', 'cy', 'dee');
    const batch = await request('POST', '/api/email/batch', {
      key: sender.key,
      body: { emails: [{ from: sender.from, recipients: [ann], subject: 'Batch', content: '<p>Batch</p>' }] },
    });
    await expectKept(sender, batch.body.results[0].successfulEmails[0].trackingId, { subject: 'Batch', to: [ann], html: '<p>Batch</p>' });

    const otp = await request('POST', '/api/otp/send', { key: sender.key, body: { from: sender.from, to: bob, code: '424242' } });
    expect(otp.status, JSON.stringify(otp.body)).toBe(200);
    const otpContent = (await contentOf(sender.key, otp.body.emailId)).body.data;
    expect(otpContent).toMatchObject({ to: [bob] });
    // The code is masked wherever the message carried it: the log must not sign its reader in as Bob.
    expect(JSON.stringify(otpContent)).not.toContain('424242');
    expect(otpContent.html).toContain('••••••');

    const transactional = await request('POST', '/api/transactional/send', {
      key: sender.key,
      body: { from: sender.from, to: cy, subject: 'Receipt', content: '<p>Paid</p>' },
    });
    await expectKept(sender, transactional.body.emailId, { subject: 'Receipt', to: [cy], html: '<p>Paid</p>' });

    const { audienceId } = await mixedAudience(sender, 3);
    const broadcast = await createBroadcast(sender, { audienceId, content: '<p>Hi {{firstName}}</p>' });
    const test = await request('POST', `/api/broadcasts/${broadcast.id}/test`, { key: sender.key, body: { to: [dee] } });
    expect(test.status, JSON.stringify(test.body)).toBe(200);
    await expectKept(sender, test.body.sent[0].emailId, { to: [dee], subject: expect.stringMatching(/^\[Test\] /) });

    expect((await sendWith(sender.key, broadcast.id)).status).toBe(202);
    await drainBroadcastQueue();
    const messages = (await request('GET', `/api/emails?broadcastId=${broadcast.id}&status=sent`, { key: sender.key })).body.emails;
    expect(messages.length).toBeGreaterThan(0);
    for (const message of messages) {
      const { body } = await contentOf(sender.key, message.id);
      expect(body.data).toMatchObject({ to: [message.to], headers: expect.arrayContaining([{ name: 'List-Id', value: expect.any(String) }]) });
      expect(body.data.html).toContain('Unsubscribe');
    }
  });

  it('is the account’s alone: another account’s key gets EMAIL_NOT_FOUND; a member of the account may read it', async () => {
    const sender = await createSender();
    const sent = await request('POST', '/api/email/send', {
      key: sender.key,
      body: { from: sender.from, recipients: [uniqueAddress()], subject: 'Mine', content: '<p>Mine</p>' },
    });
    const emailId = await emailIdOf(sender.key, sent.body.successfulEmails[0].trackingId);
    const other = await createTestAccount();

    expect(await contentOf(other.key, emailId)).toMatchObject({ status: 404, body: { success: false, error: 'EMAIL_NOT_FOUND' } });
    const member = await signedInCookie(sender.accountId, 'member');
    const asMember = await asPerson(member, 'GET', `/api/emails/${emailId}/content`);
    expect(asMember.status).toBe(200);
    expect(asMember.body.data.subject).toBe('Mine');
  });

  it('answers EMAIL_CONTENT_NOT_FOUND for an email whose content is not kept (a suppressed recipient’s), EMAIL_NOT_FOUND for an unknown one', async () => {
    const sender = await createSender();
    const [ann, gone] = uniqueAddresses('ann', 'gone');
    await addContact(sender.key, gone, 'unsubscribed');
    const sent = await request('POST', '/api/email/send', {
      key: sender.key,
      body: { from: sender.from, recipients: [ann, gone], subject: 'S', content: '<p>S</p>' },
    });
    expect(sent.status).toBe(200);
    const suppressed = (await request('GET', `/api/emails?to=${encodeURIComponent(gone)}`, { key: sender.key })).body.emails[0];
    expect(suppressed.status).toBe('suppressed');

    expect(await contentOf(sender.key, suppressed.id)).toMatchObject({ status: 404, body: { error: 'EMAIL_CONTENT_NOT_FOUND' } });
    expect(await contentOf(sender.key, 'eml_0000000000000000000000')).toMatchObject({ status: 404, body: { error: 'EMAIL_NOT_FOUND' } });
  });
});
