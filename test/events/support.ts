/**
 * Sends over HTTP and SES's own notifications about them, fed through the
 * feedback handler as Lambda runs it (its AWS calls checked against its role,
 * test/support/aws-calls.ts): what the `email.*` producers are tested with.
 */
import { expect } from 'vitest';
import { sesEventBridgeEvent, type SesEventType } from '#dev/local/ses-events.ts';
import { request } from '../support/api.ts';
import { deliverFeedback } from '../support/feedback.ts';
import { uniqueAddress, type createSender } from '../sending/support.ts';

export const feedback = deliverFeedback;

type Sender = Awaited<ReturnType<typeof createSender>>;

/** Sends one message over HTTP; answers its record as GET /api/emails/:id shows it. */
export async function sendOne(sender: Sender, body: Record<string, unknown> = {}, key = sender.key) {
  const to = uniqueAddress();
  const response = await request('POST', '/api/email/send', {
    key,
    body: { from: sender.from, recipients: [to], subject: 'Hello', content: '<p>Hi</p>', ...body },
  });
  expect(response.status).toBe(200);
  return (await request('GET', `/api/emails/${response.body.successfulEmails[0].trackingId}`, { key })).body.data;
}

/** SES's event for the record, as the feedback handler receives it. */
export function sesEventFor(sender: Sender, email: Record<string, any>, type: SesEventType, at = new Date(), extra: { link?: string; tracking?: string } = {}) {
  return sesEventBridgeEvent(
    type,
    {
      accountId: sender.accountId,
      emailId: email.id,
      trackingId: email.trackingId,
      messageId: email.sesMessageId ?? `0100-${email.id}`,
      recipient: email.to,
      from: email.from,
      subject: email.subject,
      ...extra,
    },
    at,
  );
}

/** The email fields every `email.*` event's data carries. */
export const facts = (email: Record<string, any>) => ({
  emailId: email.id,
  trackingId: email.trackingId,
  to: email.to,
  from: email.from,
  subject: email.subject,
});
