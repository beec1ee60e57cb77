/**
 * Cancelling stops sending: once the cancel is answered, no message of the
 * broadcast is handed to SES beyond a group of at most 10 already in SES's
 * hands, and the counts show what went out. The cancel is made from inside
 * SES's answer to a message (a spy on the SES client that only delays), so
 * that it lands while a batch is sending.
 */
import type { SendEmailCommand } from '@aws-sdk/client-sesv2';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ses } from '#shared/sending/transport.ts';
import { request } from '../support/api.ts';
import { createSender, storedEmails, uniqueAddress } from '../sending/support.ts';
import { createAudience } from '../support/arrange.ts';
import { createBroadcast, drainBroadcastQueue, readBroadcast, sendWith } from './support.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('cancelling a broadcast while it sends', { timeout: 60_000 }, () => {
  it('hands SES at most the group of 10 already in its hands after the cancel is answered, and counts what went out', async () => {
    const sender = await createSender();
    const audienceId = await createAudience(sender.key, 'One batch');
    const contacts = Array.from({ length: 50 }, (_, index) => ({ email: uniqueAddress(`x${index}`) }));
    expect((await request('POST', '/api/contacts/bulk', { key: sender.key, body: { audienceId, contacts } })).status).toBe(200);
    const broadcast = await createBroadcast(sender, { audienceId, content: '<p>Hi</p>' });
    // SES calls so far, and how many there were when the cancel was answered: it is made while SES takes the 15th message.
    let calls = 0;
    let atAnswer: number | undefined;
    const original = ses.send.bind(ses);
    vi.spyOn(ses, 'send').mockImplementation((async (command: SendEmailCommand) => {
      calls++;
      if (calls === 15) {
        const cancelled = await request('POST', `/api/broadcasts/${broadcast.id}/cancel`, { key: sender.key });
        expect(cancelled.status).toBe(200);
        atAnswer = calls;
      }
      return original(command);
    }) as typeof ses.send);

    await sendWith(sender.key, broadcast.id);
    await drainBroadcastQueue();

    expect(atAnswer).toBeDefined();
    expect(calls - atAnswer!).toBeLessThanOrEqual(10);
    const stored = await storedEmails(sender.domain);
    expect(stored.length).toBeLessThan(contacts.length);
    expect(await readBroadcast(sender.key, broadcast.id)).toMatchObject({ status: 'cancelled', counts: { recipients: 50, sent: stored.length } });
  });
});
