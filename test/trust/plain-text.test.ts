/** The plain-text part recipients read when their client shows no HTML (issue: tables ran cells together). */
import { describe, expect, it } from 'vitest';
import { request } from '../support/api.ts';
import { createSender, storedEmails, uniqueAddress } from '../sending/support.ts';

describe('the plain-text part of a sent email', () => {
  it('keeps table cells and rows apart', async () => {
    const sender = await createSender();
    const content = '<p>Your order</p><table><tr><td>Email</td><td>{{email}}</td></tr><tr><td>Total</td><td>$10</td></tr></table>';

    const sent = await request('POST', '/api/email/send', {
      key: sender.key,
      body: { from: sender.from, recipients: [uniqueAddress()], subject: 'Order', content, variables: { email: 'dave@example.com' } },
    });

    expect(sent.status).toBe(200);
    const [email] = await storedEmails(sender.domain);
    const lines = email!.body.text!.split('\n').filter((line) => line.trim() !== '');
    expect(lines.map((line) => line.trim().split(/\s{2,}/))).toEqual([['Your order'], ['Email', 'dave@example.com'], ['Total', '$10']]);
  });

  it('refuses HTML nested past any layout before parsing it (422, never a slow 500)', async () => {
    const sender = await createSender();

    const sent = await request('POST', '/api/email/send', {
      key: sender.key,
      body: { from: sender.from, recipients: [uniqueAddress()], subject: 'Deep', content: `${'<div>'.repeat(30_000)}x` },
    });

    expect(sent.status).toBe(422);
    expect(sent.body).toMatchObject({ success: false, error: 'VALIDATION_ERROR', field: 'content' });
    expect(sent.body.message).toMatch(/more than 256 deep/);
    expect(await storedEmails(sender.domain)).toEqual([]);
  });
});
