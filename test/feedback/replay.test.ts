/**
 * Dead-lettered SES feedback, replayed by the admin command through the
 * feedback worker's code; and the handler's idempotency that makes replays
 * safe: the same event applied again changes no item.
 */
import { randomUUID } from 'node:crypto';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { getContact } from '#shared/contacts/store.ts';
import { db, tableName } from '#shared/platform/dynamodb/client.ts';
import { getEmailRecord } from '#shared/messages/store.ts';
import { suppressionKey } from '#shared/sending/suppression-store.ts';
import { sqs } from '#shared/sending/retry-queue.ts';
import { sesEventBridgeEvent, type SesEventType } from '#dev/local/ses-events.ts';
import { admin, freshQueue, messagesIn } from '../support/admin-cli.ts';
import { deliverFeedback } from '../support/feedback.ts';
import { request } from '../support/api.ts';
import { createSender, type Sender, sendPlain, uniqueAddress } from '../sending/support.ts';

async function contactIn(sender: Sender, address: string) {
  const audience = (await request('POST', '/api/audiences', { key: sender.key, body: { name: 'A' } })).body.data;
  const contact = (await request('POST', '/api/contacts', { key: sender.key, body: { email: address, audienceId: audience.id } })).body.data;
  return { audienceId: audience.id as string, contactId: contact.id as string };
}

async function sent(sender: Sender, recipient: string) {
  const response = await sendPlain(sender, [recipient]);
  const record = (await request('GET', `/api/emails/${response.body.successfulEmails[0].trackingId}`, { key: sender.key })).body.data;
  return { accountId: sender.accountId, emailId: record.id as string, messageId: `m-${randomUUID()}`, recipient };
}

const suppression = async (accountId: string, address: string) =>
  (await db.send(new GetCommand({ TableName: tableName, Key: suppressionKey(accountId, address) }))).Item;

describe('feedback replay', () => {
  it('applies every dead-lettered event through the feedback handler, deletes them, and keeps what fails', async () => {
    const sender = await createSender();
    const [bounced, complained] = [uniqueAddress('bounce'), uniqueAddress('complaint')];
    const { audienceId } = await contactIn(sender, bounced);
    const events = [sesEventBridgeEvent('Bounce', await sent(sender, bounced)), sesEventBridgeEvent('Complaint', await sent(sender, complained))];
    const queueUrl = await freshQueue('feedback-dlq');
    for (const body of [...events.map((event) => JSON.stringify(event)), 'not an event'])
      await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));

    const run = await admin(['feedback', 'replay', '--queue', queueUrl]);

    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(run.stdout)).toEqual({ replayed: 2, failed: 1 });
    expect(await messagesIn(queueUrl)).toBe(1);
    const stats = (await request('GET', `/api/audiences/${audienceId}/stats`, { key: sender.key })).body.data;
    expect(stats).toMatchObject({ total: 1, subscribed: 0, bounced: 1 });
    expect((await getEmailRecord(sender.accountId, events[0]!.detail.mail.tags['postlane-email'][0]!))!.status).toBe('bounced');
    expect((await getEmailRecord(sender.accountId, events[1]!.detail.mail.tags['postlane-email'][0]!))!.status).toBe('complained');
    expect(await suppression(sender.accountId, complained)).toMatchObject({ reason: 'complained' });
  });

  it('replaying the same events again changes nothing more', async () => {
    const sender = await createSender();
    const address = uniqueAddress('again');
    const { audienceId } = await contactIn(sender, address);
    const event = JSON.stringify(sesEventBridgeEvent('Bounce', await sent(sender, address)));
    const queueUrl = await freshQueue('feedback-dlq');
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: event }));
    await admin(['feedback', 'replay', '--queue', queueUrl]);
    const stats = (await request('GET', `/api/audiences/${audienceId}/stats`, { key: sender.key })).body.data;

    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: event }));
    const again = await admin(['feedback', 'replay', '--queue', queueUrl]);

    expect(JSON.parse(again.stdout)).toEqual({ replayed: 1, failed: 0 });
    expect((await request('GET', `/api/audiences/${audienceId}/stats`, { key: sender.key })).body.data).toEqual(stats);
  });

  it('refuses a --queue that is not a URL with one line on stderr', async () => {
    const run = await admin(['feedback', 'replay', '--queue', 'feedback-dlq']);

    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.trimEnd().split('\n')).toEqual([expect.stringContaining('--queue must be a queue URL')]);
  });
});

describe('the feedback handler is idempotent', () => {
  it.each<[SesEventType[], string]>([
    [['Bounce'], 'a contact'],
    [['Delivery', 'Complaint'], 'a contact'],
    [['Complaint'], 'no contact'],
    [['Bounce'], 'no contact'],
  ])('applying %s about %s a second time changes no item', async (types, who) => {
    const sender = await createSender();
    const address = uniqueAddress('twice');
    const contact = who === 'a contact' ? await contactIn(sender, address) : undefined;
    const message = await sent(sender, address);
    const events = types.map((type, index) => sesEventBridgeEvent(type, message, new Date(Date.now() + index * 1000)));
    const snapshot = async () => ({
      record: await getEmailRecord(sender.accountId, message.emailId),
      contact: contact && (await getContact(sender.accountId, contact.contactId)),
      stats: contact && (await request('GET', `/api/audiences/${contact.audienceId}/stats`, { key: sender.key })).body.data,
      suppression: await suppression(sender.accountId, address),
    });
    for (const event of events) await deliverFeedback(event);
    const once = await snapshot();

    for (const event of events) await deliverFeedback(event);

    expect(await snapshot()).toEqual(once);
    expect(once.record!.status).not.toBe('sent');
  });
});
