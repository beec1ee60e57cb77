import { describe, expect, it } from 'vitest';
import { request } from '../support/api.ts';
import { createSender, uniqueAddress } from './support.ts';

describe('GET /api/emails/:id', () => {
  it('returns the stored record of a sent message, by email id and by tracking id', async () => {
    const sender = await createSender();
    const to = uniqueAddress();
    const sent = await request('POST', '/api/transactional/send', {
      key: sender.key,
      body: { from: `Acme <${sender.from}>`, to, subject: 'Receipt {{n}}', content: '<p>{{n}}</p>', variables: { n: 42 }, replyTo: 'help@acme.example' },
    });

    const byId = await request('GET', `/api/emails/${sent.body.emailId}`, { key: sender.key });
    const byTrackingId = await request('GET', `/api/emails/${sent.body.trackingId}`, { key: sender.key });

    expect(byId.status).toBe(200);
    expect(byId.body).toEqual({
      success: true,
      data: {
        id: sent.body.emailId,
        trackingId: sent.body.trackingId,
        type: 'transactional',
        from: `Acme <${sender.from}>`,
        to,
        cc: [],
        bcc: [],
        replyTo: 'help@acme.example',
        subject: 'Receipt 42',
        status: 'sent',
        error: null,
        sesMessageId: expect.stringMatching(/^ses-/),
        test: false,
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        opens: 0,
        clicks: 0,
        firstOpenedAt: null,
        lastClickedAt: null,
        broadcastId: null,
      },
    });
    expect(byTrackingId.body).toEqual(byId.body);
  });

  it('finds each message of a multi-recipient send by its tracking id, cc and bcc included', async () => {
    const sender = await createSender();
    const [ann, bob, cc] = [uniqueAddress('ann'), uniqueAddress('bob'), uniqueAddress('cc')];
    const sent = await request('POST', '/api/email/send', {
      key: sender.key,
      body: { from: sender.from, recipients: [ann, bob], cc: [cc], subject: 'S', content: '<p>S</p>' },
    });

    const records = await Promise.all(
      sent.body.successfulEmails.map((item: { trackingId: string }) => request('GET', `/api/emails/${item.trackingId}`, { key: sender.key })),
    );

    expect(records.map((record) => [record.body.data.to, record.body.data.cc, record.body.data.type])).toEqual([
      [ann, [cc], 'email'],
      [bob, [cc], 'email'],
    ]);
  });

  it("answers EMAIL_NOT_FOUND for unknown, malformed, forged and other accounts' ids alike", async () => {
    const sender = await createSender();
    const other = await createSender();
    const theirs = await request('POST', '/api/otp/send', { key: other.key, body: { from: other.from, to: uniqueAddress(), code: '1' } });
    const forgedTracking = theirs.body.trackingId.replace(/^svc_\d{13}/, 'svc_1000000000000');

    const ids = [theirs.body.emailId, theirs.body.trackingId, 'eml_0000000000000000000x', 'nope', forgedTracking];
    const responses = await Promise.all(ids.map((id) => request('GET', `/api/emails/${encodeURIComponent(id)}`, { key: sender.key })));
    const ownForged = await request('GET', `/api/emails/${forgedTracking}`, { key: other.key });

    for (const response of [...responses, ownForged]) {
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ success: false, error: 'EMAIL_NOT_FOUND', message: 'Email not found' });
    }
  });
});
