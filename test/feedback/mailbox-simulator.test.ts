/**
 * The local stand-in for SES's mailbox simulator (npm start): sends to the
 * simulator's addresses come back as feedback through the deployed handler,
 * and an event the handler fails on lands in the local feedback dead-letter
 * queue, from which `admin feedback replay` applies it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startMailboxSimulator, simulatorMailbox, type MailboxSimulator } from '#dev/local/mailbox-simulator.ts';
import { injectDynamoFault } from '../faults/support.ts';
import { admin, freshQueue, messagesIn } from '../support/admin-cli.ts';
import { request } from '../support/api.ts';
import { createSender, type Sender, sendPlain } from '../sending/support.ts';

let simulator: MailboxSimulator | undefined;
afterEach(async () => {
  await simulator?.stop();
  simulator = undefined;
});

const label = () => Math.random().toString(36).slice(2, 10);

async function sendTo(sender: Sender, address: string): Promise<string> {
  const response = await sendPlain(sender, [address]);
  return response.body.successfulEmails[0].trackingId;
}

async function statusOf(sender: Sender, trackingId: string, wanted: string): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { status } = (await request('GET', `/api/emails/${trackingId}`, { key: sender.key })).body.data;
    if (status === wanted || Date.now() > deadline) return status;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('local mailbox simulator', () => {
  it("knows the simulator's mailboxes, with or without a +label, and nothing else", () => {
    expect(simulatorMailbox('bounce@simulator.amazonses.com')).toBe('bounce');
    expect(simulatorMailbox('Complaint+smoke-1@Simulator.AmazonSES.com')).toBe('complaint');
    expect(simulatorMailbox('success@example.com')).toBeUndefined();
    expect(simulatorMailbox('ooto@simulator.amazonses.com')).toBeUndefined();
  });

  it('turns sends to success, bounce and complaint into delivered, bounced and complained, contacts included', async () => {
    simulator = startMailboxSimulator({ delayMs: 0 });
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

  it('dead-letters an event the handler fails on, which admin feedback replay then applies', async () => {
    const deadLetters = await freshQueue('feedback-dlq');
    simulator = startMailboxSimulator({ deadLetterQueueUrl: deadLetters, delayMs: 0 });
    const sender = await createSender();
    // The first transaction on an email record of the account after the send: the feedback's (the record's change with its event).
    injectDynamoFault({ command: 'TransactWriteItemsCommand', touching: `${sender.accountId}#EML#`, nth: 1, fault: 'throttled' });

    const trackingId = await sendTo(sender, `bounce+${label()}@simulator.amazonses.com`);
    await simulator.stop();
    simulator = undefined;
    const before = (await request('GET', `/api/emails/${trackingId}`, { key: sender.key })).body.data.status;
    const run = await admin(['feedback', 'replay', '--queue', deadLetters]);

    expect(before).toBe('sent');
    expect(JSON.parse(run.stdout)).toEqual({ replayed: 1, failed: 0 });
    expect(await statusOf(sender, trackingId, 'bounced')).toBe('bounced');
    expect(await messagesIn(deadLetters)).toBe(0);
  });
});
