/**
 * The local stand-ins of SES's mailbox simulator and of the stack's feedback
 * path (npm start): sends to the simulator's addresses come back as SES
 * events on the feedback queue, as the rule puts them there; the worker the
 * queue's event source feeds applies them. An event the worker fails on is
 * received again, and after its last receive the queue's redrive policy moves
 * it to the dead-letter queue, from which `admin feedback replay` applies it.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createFeedbackQueues, type FeedbackQueues, startFeedbackWorker } from '#dev/local/feedback-worker.ts';
import { startMailboxSimulator, simulatorMailbox, type MailboxSimulator } from '#dev/local/mailbox-simulator.ts';
import type { QueuePoller } from '#dev/local/queue-poller.ts';
import { config } from '#shared/platform/config.ts';
import { FEEDBACK_MAX_RECEIVES } from '#shared/feedback/policy.ts';
import { injectDynamoFault } from '../faults/support.ts';
import { admin, messagesIn } from '../support/admin-cli.ts';
import { request } from '../support/api.ts';
import { eventually } from '../support/eventually.ts';
import { createSender, type Sender, sendPlain } from '../sending/support.ts';
import { broadcastWhen, createBroadcast, drainBroadcastQueue, sendWith } from '../broadcasts/support.ts';

let simulator: MailboxSimulator | undefined;
let worker: QueuePoller | undefined;
afterEach(async () => {
  await simulator?.stop();
  await worker?.stop();
  simulator = undefined;
  worker = undefined;
});

const label = () => Math.random().toString(36).slice(2, 10);

/**
 * The feedback queue and its dead-letter queue, the simulator publishing to
 * them and the worker draining the queue. A failed event is visible again at
 * once (the stack hides it for six times the function's timeout), so the
 * test waits on nothing but the receives themselves; and one batch at a time,
 * since an event visible again at once would reach a second worker while the
 * first still applies it.
 */
async function feedbackPath(): Promise<FeedbackQueues> {
  const queues = await createFeedbackQueues(config.SQS_ENDPOINT!, `feedback-${randomUUID()}`, { visibilityTimeoutSeconds: 0 });
  simulator = startMailboxSimulator({ queues, delayMs: 0 });
  worker = await startFeedbackWorker(queues.queueUrl, 1);
  return queues;
}

async function sendTo(sender: Sender, address: string): Promise<string> {
  const response = await sendPlain(sender, [address]);
  return response.body.successfulEmails[0].trackingId;
}

const statusNow = async (sender: Sender, trackingId: string): Promise<string> =>
  (await request('GET', `/api/emails/${trackingId}`, { key: sender.key })).body.data.status;

const statusOf = (sender: Sender, trackingId: string, wanted: string): Promise<string> =>
  eventually(
    () => statusNow(sender, trackingId),
    (status) => status === wanted,
  );

describe('local mailbox simulator', () => {
  it("knows the simulator's mailboxes, with or without a +label, and nothing else", () => {
    expect(simulatorMailbox('bounce@simulator.amazonses.com')).toBe('bounce');
    expect(simulatorMailbox('Complaint+smoke-1@Simulator.AmazonSES.com')).toBe('complaint');
    expect(simulatorMailbox('success@example.com')).toBeUndefined();
    expect(simulatorMailbox('ooto@simulator.amazonses.com')).toBeUndefined();
  });

  it('turns sends to success, bounce and complaint into delivered, bounced and complained, contacts included', async () => {
    await feedbackPath();
    const sender = await createSender();
    const bounce = `bounce+${label()}@simulator.amazonses.com`;
    const audience = (await request('POST', '/api/audiences', { key: sender.key, body: { name: 'A' } })).body.data;
    const contact = (await request('POST', '/api/contacts', { key: sender.key, body: { email: bounce, audienceId: audience.id } })).body.data;

    const sent = {
      success: await sendTo(sender, `success+${label()}@simulator.amazonses.com`),
      bounce: await sendTo(sender, bounce),
      complaint: await sendTo(sender, `complaint+${label()}@simulator.amazonses.com`),
    };

    expect(await statusOf(sender, sent.success, 'delivered')).toBe('delivered');
    expect(await statusOf(sender, sent.bounce, 'bounced')).toBe('bounced');
    expect(await statusOf(sender, sent.complaint, 'complained')).toBe('complained');
    expect((await request('GET', `/api/contacts/${contact.id}`, { key: sender.key })).body.data.status).toBe('bounced');
  });

  it("counts a broadcast's deliveries, bounces and complaints in its results, as SES's events carry the broadcast's tag", async () => {
    await feedbackPath();
    const sender = await createSender();
    const audience = (await request('POST', '/api/audiences', { key: sender.key, body: { name: 'Simulated' } })).body.data;
    const contacts = ['success', 'success', 'bounce', 'complaint'].map((mailbox) => ({ email: `${mailbox}+${label()}@simulator.amazonses.com` }));
    await request('POST', '/api/contacts/bulk', { key: sender.key, body: { audienceId: audience.id, contacts } });
    const broadcast = await createBroadcast(sender, { audienceId: audience.id, content: '<p>Hello</p>' });

    await sendWith(sender.key, broadcast.id);
    await drainBroadcastQueue();
    expect((await broadcastWhen(sender.key, broadcast.id, ['sent'])).status).toBe('sent');

    const results = await eventually(
      async () => (await request('GET', `/api/broadcasts/${broadcast.id}/stats`, { key: sender.key })).body.data,
      (stats) => stats.delivered === 3 && stats.bounced === 1 && stats.complained === 1,
    );
    // A complaint follows its delivery, as SES reports it.
    expect(results).toMatchObject({ sent: 4, delivered: 3, bounced: 1, complained: 1 });
  });

  it('receives an event the worker failed on again, until it is applied', async () => {
    const queues = await feedbackPath();
    const sender = await createSender();
    // The bounce's transaction (the record's change with its event) fails three receives running, then DynamoDB is back.
    const fault = injectDynamoFault({ command: 'TransactWriteItemsCommand', touching: `${sender.accountId}#EML#`, times: 3, fault: 'throttled' });

    const trackingId = await sendTo(sender, `bounce+${label()}@simulator.amazonses.com`);

    expect(await statusOf(sender, trackingId, 'bounced')).toBe('bounced');
    // Three failed receives, then the one that applied it.
    expect(fault.matched()).toBeGreaterThan(3);
    expect(await messagesIn(queues.deadLetterQueueUrl)).toBe(0);
  });

  it('moves an event the worker failed on at every receive to the dead-letter queue, from which admin feedback replay applies it', async () => {
    const queues = await feedbackPath();
    const sender = await createSender();
    const fault = injectDynamoFault({
      command: 'TransactWriteItemsCommand',
      touching: `${sender.accountId}#EML#`,
      times: Number.POSITIVE_INFINITY,
      fault: 'throttled',
    });

    const trackingId = await sendTo(sender, `bounce+${label()}@simulator.amazonses.com`);
    const deadLettered = await eventually(
      () => messagesIn(queues.deadLetterQueueUrl),
      (count) => count === 1,
    );
    await worker!.stop();
    worker = undefined;

    expect(deadLettered).toBe(1);
    expect(fault.matched()).toBe(FEEDBACK_MAX_RECEIVES);
    expect(await statusNow(sender, trackingId)).toBe('sent');
    expect(await messagesIn(queues.queueUrl)).toBe(0);

    const run = await admin(['feedback', 'replay', '--queue', queues.deadLetterQueueUrl]);

    expect(JSON.parse(run.stdout)).toEqual({ replayed: 1, failed: 0 });
    expect(await statusNow(sender, trackingId)).toBe('bounced');
    expect(await messagesIn(queues.deadLetterQueueUrl)).toBe(0);
  });
});
