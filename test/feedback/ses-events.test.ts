import { describe, expect, it, vi } from 'vitest';
import { getContact } from '#shared/contacts/store.ts';
import { sendEmailInput } from '#shared/sending/transport.ts';
import { request } from '../support/api.ts';
import { createSender, outgoingEmail, type Sender, sendPlain, suppressedFailure, uniqueAddress } from '../sending/support.ts';
import { injectDynamoFault } from '../faults/support.ts';
import { createAudience } from '../support/arrange.ts';
import { deliverFeedback, feedbackBatch, feedbackWorker } from '../support/feedback.ts';

/** An EventBridge event carrying an SES event publishing record, modelled on AWS's documented examples. */
function sesEvent(eventType: string, accountId: string, emailId: string, body: Record<string, unknown>) {
  return {
    version: '0',
    id: 'e1',
    'detail-type': `Email ${eventType}`,
    source: 'aws.ses',
    account: '123456789012',
    time: '2026-11-21T18:00:00Z',
    region: 'us-east-1',
    resources: [],
    detail: {
      eventType,
      mail: {
        timestamp: '2026-11-21T18:00:00.000Z',
        source: 'news@example.com',
        messageId: '0100abc',
        destination: ['x@example.org'],
        tags: { 'ses:configuration-set': ['postlane'], 'postlane-account': [accountId], 'postlane-email': [emailId] },
      },
      ...body,
    },
  };
}
const permanentBounce = (address: string) => ({
  bounce: {
    bounceType: 'Permanent',
    bounceSubType: 'General',
    bouncedRecipients: [{ emailAddress: address, action: 'failed', status: '5.1.1' }],
    timestamp: '2026-11-21T18:00:01Z',
    feedbackId: 'f1',
  },
});
const complaint = (address: string) => ({
  complaint: { complainedRecipients: [{ emailAddress: address }], timestamp: '2026-11-21T18:00:01Z', feedbackId: 'f2', complaintFeedbackType: 'abuse' },
});

async function audienceWith(sender: Sender, address: string) {
  const audienceId = await createAudience(sender.key, 'A');
  await request('POST', '/api/contacts', { key: sender.key, body: { email: address, audienceId } });
  return audienceId;
}
/** The email's record says `status`, and a later send to its address is refused as suppressed (without saying why: docs/security.md). */
async function expectSuppressed(sender: Sender, trackingId: string, address: string, status: 'bounced' | 'complained') {
  expect((await emailStatus(sender, trackingId)).status).toBe(status);
  expect((await sendPlain(sender, [address])).body.failedEmails).toEqual([suppressedFailure(address)]);
}
async function sendTo(sender: Sender, address: string): Promise<string> {
  const response = await sendPlain(sender, [address]);
  return response.body.successfulEmails?.[0]?.trackingId;
}
const statusIn = async (sender: Sender, address: string, audienceId: string) =>
  (await request('GET', `/api/contacts?audienceId=${audienceId}&email=${encodeURIComponent(address)}`, { key: sender.key })).body;
const emailStatus = async (sender: Sender, trackingId: string) => (await request('GET', `/api/emails/${trackingId}`, { key: sender.key })).body.data;

describe('SES feedback', () => {
  it('a permanent bounce marks the contact bounced in every audience, once, suppresses later sends and updates the record', async () => {
    const sender = await createSender();
    const address = uniqueAddress('gone');
    const [first, second] = [await audienceWith(sender, address), await audienceWith(sender, address)];
    const trackingId = await sendTo(sender, address);
    const record = await emailStatus(sender, trackingId);
    const event = sesEvent('Bounce', sender.accountId, record.id, permanentBounce(address));

    await deliverFeedback(event);
    await deliverFeedback(event);

    for (const audienceId of [first, second]) {
      const stats = (await request('GET', `/api/audiences/${audienceId}/stats`, { key: sender.key })).body.data;
      expect(stats).toMatchObject({ total: 1, subscribed: 0, bounced: 1 });
      expect(JSON.stringify(await statusIn(sender, address, audienceId))).toContain('"status":"bounced"');
    }
    await expectSuppressed(sender, trackingId, address, 'bounced');
  });

  it('a DynamoDB failure half way lists the event as failed, so it is received again, and the retry finishes the work exactly once', async () => {
    const sender = await createSender();
    const address = uniqueAddress('flaky');
    const [first, second] = [await audienceWith(sender, address), await audienceWith(sender, address)];
    const trackingId = await sendTo(sender, address);
    const event = sesEvent('Bounce', sender.accountId, (await emailStatus(sender, trackingId)).id, permanentBounce(address));

    const fault = injectDynamoFault({ command: 'TransactWriteItemsCommand', touching: sender.accountId, nth: 2, fault: 'throttled' });
    const batch = feedbackBatch(event);
    expect(await feedbackWorker(batch)).toEqual({ batchItemFailures: [{ itemIdentifier: batch.Records[0]!.messageId }] });
    expect(fault.matched()).toBe(2);
    expect((await emailStatus(sender, trackingId)).status).toBe('sent');

    await deliverFeedback(event);
    for (const audienceId of [first, second]) {
      const stats = (await request('GET', `/api/audiences/${audienceId}/stats`, { key: sender.key })).body.data;
      expect(stats).toMatchObject({ total: 1, subscribed: 0, bounced: 1 });
    }
    expect((await emailStatus(sender, trackingId)).status).toBe('bounced');
  });

  it('a complaint about an address that is no contact suppresses it for the account', async () => {
    const sender = await createSender();
    const address = uniqueAddress('angry');
    const trackingId = await sendTo(sender, address);
    const record = await emailStatus(sender, trackingId);

    await deliverFeedback(sesEvent('Complaint', sender.accountId, record.id, complaint(address)));

    await expectSuppressed(sender, trackingId, address, 'complained');
  });

  it('a transient bounce changes nothing; a delivery marks the record delivered', async () => {
    const sender = await createSender();
    const address = uniqueAddress('full');
    const audienceId = await audienceWith(sender, address);
    const trackingId = await sendTo(sender, address);
    const record = await emailStatus(sender, trackingId);

    await deliverFeedback(
      sesEvent('Bounce', sender.accountId, record.id, {
        bounce: { ...permanentBounce(address).bounce, bounceType: 'Transient', bounceSubType: 'MailboxFull' },
      }),
    );
    expect((await emailStatus(sender, trackingId)).status).toBe('sent');
    expect(JSON.stringify(await statusIn(sender, address, audienceId))).toContain('"status":"subscribed"');

    await deliverFeedback(sesEvent('Delivery', sender.accountId, record.id, { delivery: { recipients: [address], smtpResponse: '250 ok' } }));
    expect((await emailStatus(sender, trackingId)).status).toBe('delivered');
  });

  it('a delivery moves lastActivityAt of the contact in every audience of the account, never backwards', async () => {
    const sender = await createSender();
    const address = uniqueAddress('active');
    const [first, second] = [await audienceWith(sender, address), await audienceWith(sender, address)];
    const record = await emailStatus(sender, await sendTo(sender, address));
    const contactIn = async (audienceId: string) =>
      (await request('GET', `/api/contacts/email/${encodeURIComponent(address)}?audienceId=${audienceId}`, { key: sender.key })).body.data;
    const delivered = new Date(Date.now() + 3_600_000).toISOString();
    const earlier = new Date(Date.now() + 60_000).toISOString();
    const contactId = (await contactIn(first)).id as string;
    const versionBefore = (await getContact(sender.accountId, contactId))!.version;

    await deliverFeedback(
      sesEvent('Delivery', sender.accountId, record.id, { delivery: { timestamp: delivered, recipients: [address.toUpperCase()], smtpResponse: '250 ok' } }),
    );
    // Out of order or redelivered: an older delivery leaves it where it is.
    await deliverFeedback(
      sesEvent('Delivery', sender.accountId, record.id, { delivery: { timestamp: earlier, recipients: [address], smtpResponse: '250 ok' } }),
    );

    expect((await contactIn(first)).lastActivityAt).toBe(delivered);
    expect((await contactIn(second)).lastActivityAt).toBe(delivered);
    // A new version, once: an update that read the contact before cannot write the old value back.
    expect((await getContact(sender.accountId, contactId))!.version).toBe(versionBefore + 1);
  });

  it('drops malformed, unknown and untagged events, and keeps a body that is no event for an operator', async () => {
    const batch = feedbackBatch(
      { detail: 'nonsense' },
      { detail: { eventType: 'Open', mail: { messageId: 'm', tags: {} } } },
      sesEvent('Bounce', 'acc_nope', 'eml_nope', {}),
    );
    const notJson = { ...batch.Records[0]!, messageId: 'not-json', body: 'not an event' };

    expect(await feedbackWorker({ Records: [...batch.Records, notJson] })).toEqual({ batchItemFailures: [{ itemIdentifier: 'not-json' }] });
  });

  it("logs under the invocation's request id, the message id and the event's detail type", async () => {
    const lines: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line));
    const batch = feedbackBatch({ 'detail-type': 'Email Bounced', detail: 'nonsense' });
    await feedbackWorker(batch, { awsRequestId: 'req-feedback-1' });
    expect(lines.map((line) => JSON.parse(line))).toContainEqual(
      expect.objectContaining({
        message: 'SES event dropped',
        lambdaRequestId: 'req-feedback-1',
        messageId: batch.Records[0]!.messageId,
        detailType: 'Email Bounced',
      }),
    );
  });

  it('tags every message with its account and email id, and names the configuration set when one is configured', () => {
    const input = sendEmailInput(outgoingEmail({ tags: { accountId: 'acc_1', emailId: 'eml_2' } }), 'postlane-set');
    expect(input).toMatchObject({
      ConfigurationSetName: 'postlane-set',
      EmailTags: [
        { Name: 'postlane-account', Value: 'acc_1' },
        { Name: 'postlane-email', Value: 'eml_2' },
      ],
    });
  });
});
