/**
 * SES feedback is best effort (EventBridge may lose an event); SES's
 * account-level suppression list is not. The scheduled reconciliation applies
 * what the list holds and feedback missed, to the account that sent the
 * message, through the feedback code path, and running it again changes nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { handler as reconcileHandler } from '../../functions/feedback/reconcile.ts';
import { invokedAs } from '#dev/local/invocation.ts';
import { startMailboxSimulator, type MailboxSimulator } from '#dev/local/mailbox-simulator.ts';
import { createTestAccount } from '../support/accounts.ts';
import { request } from '../support/api.ts';
import { createSender, type Sender, sendPlain } from '../sending/support.ts';

// As Lambda runs it: its AWS calls are checked against this function's role (test/support/aws-calls.ts).
const reconcile = invokedAs('feedback/reconcile', reconcileHandler);

let simulator: MailboxSimulator | undefined;
afterEach(async () => {
  await simulator?.stop();
  simulator = undefined;
});

const simulated = (mailbox: 'bounce' | 'complaint') => `${mailbox}+${Math.random().toString(36).slice(2, 10)}@simulator.amazonses.com`;

/** Sends to `address` with the feedback events lost on the way; SES's list gets the address all the same. */
async function sendWithEventsDropped(sender: Sender, address: string): Promise<string> {
  simulator = startMailboxSimulator({ delayMs: 0 });
  const sent = await sendPlain(sender, [address]);
  await simulator.stop();
  simulator = undefined;
  return sent.body.successfulEmails[0].trackingId as string;
}

async function contactIn(key: string, address: string, name: string) {
  const audienceId = (await request('POST', '/api/audiences', { key, body: { name } })).body.data.id as string;
  const contactId = (await request('POST', '/api/contacts', { key, body: { email: address, audienceId } })).body.data.id as string;
  return { audienceId, contactId };
}

/** Everything a run could change about a contact: the contact itself and its audience's counters. */
async function snapshot(key: string, { audienceId, contactId }: { audienceId: string; contactId: string }) {
  const [contact, stats] = await Promise.all([
    request('GET', `/api/contacts/${contactId}`, { key }),
    request('GET', `/api/audiences/${audienceId}/stats`, { key }),
  ]);
  return { contact: contact.body.data, stats: stats.body };
}

describe('SES suppression-list reconciliation', () => {
  it('applies a bounce whose event was lost: the contact is bounced in every audience and the record too; a second run changes nothing', async () => {
    const sender = await createSender();
    const address = simulated('bounce');
    const audiences = [await contactIn(sender.key, address, 'One'), await contactIn(sender.key, address, 'Two')];
    // Another account with the same address never mailed it: SES's list says nothing about it.
    const bystander = await createTestAccount();
    const untouched = await contactIn(bystander.key, address, 'Other');

    const trackingId = await sendWithEventsDropped(sender, address);
    const before = await snapshot(sender.key, audiences[0]!);
    await reconcile({});
    const after = await Promise.all(audiences.map((audience) => snapshot(sender.key, audience)));
    const record = (await request('GET', `/api/emails/${trackingId}`, { key: sender.key })).body.data;
    await reconcile({});
    const again = await Promise.all(audiences.map((audience) => snapshot(sender.key, audience)));

    expect(before.contact.status).toBe('subscribed');
    expect(after.map((one) => one.contact.status)).toEqual(['bounced', 'bounced']);
    expect(record.status).toBe('bounced');
    expect(again).toEqual(after);
    expect((await snapshot(bystander.key, untouched)).contact.status).toBe('subscribed');
  });

  it('suppresses an address that is no contact, so the next send refuses it', async () => {
    const sender = await createSender();
    const address = simulated('complaint');

    await sendWithEventsDropped(sender, address);
    await reconcile({});
    await reconcile({});
    const next = await request('POST', '/api/email/send', {
      key: sender.key,
      body: { from: sender.from, recipients: [address], subject: 'Again', content: '<p>Hi</p>' },
    });

    expect(next).toMatchObject({
      status: 422,
      body: { error: 'ALL_RECIPIENTS_FAILED', failedEmails: [{ recipient: address, error: 'RECIPIENT_SUPPRESSED' }] },
    });
  });

  it('never weakens a stronger status: a contact marked complained since the bounce stays so', async () => {
    const sender = await createSender();
    const address = simulated('bounce');
    const contact = await contactIn(sender.key, address, 'One');

    const trackingId = await sendWithEventsDropped(sender, address);
    await request('PATCH', `/api/contacts/${contact.contactId}`, { key: sender.key, body: { status: 'complained' } });
    const before = await snapshot(sender.key, contact);
    await reconcile({});

    expect(before.contact.status).toBe('complained');
    expect(await snapshot(sender.key, contact)).toEqual(before);
    expect((await request('GET', `/api/emails/${trackingId}`, { key: sender.key })).body.data.status).toBe('bounced');
  });
});
