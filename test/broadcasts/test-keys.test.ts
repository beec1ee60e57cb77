/**
 * A broadcast's mode, live or test, is fixed by the key that sends it: the
 * key of the send, of the schedule (whose start later carries no key) or of
 * the resume, whichever key made it. A test broadcast hands nothing to SES
 * and uses no quota; its messages are recorded with `test: true`.
 */
import { describe, expect, it } from 'vitest';
import { localScheduler } from '#dev/local/scheduler.ts';
import { reserveEmails } from '#shared/accounts/usage-store.ts';
import { quotaPeriod, showAccount } from '#shared/accounts/service.ts';
import { createSender, storedEmails } from '../sending/support.ts';
import { broadcastRecords, createBroadcast, drainBroadcastQueue, mixedAudience, readBroadcast, sendWith } from './support.ts';

const CONTENT = '<p>Hi {{firstName}}</p>';

/** An hour from now, in whole seconds (the scheduler's unit). */
function inAnHour(): Date {
  const at = new Date(Date.now() + 3_600_000);
  at.setUTCMilliseconds(0);
  return at;
}

describe('the key that sends a broadcast fixes its mode', { timeout: 60_000 }, () => {
  it('a live broadcast paused for quota and resumed with a test key runs the rest as a test: recorded, never handed to SES, no quota', async () => {
    const sender = await createSender({ quota: 2 });
    const { audienceId } = await mixedAudience(sender, 4);
    const broadcast = await createBroadcast(sender, { audienceId, content: CONTENT });
    await sendWith(sender.key, broadcast.id);
    await drainBroadcastQueue();
    expect(await readBroadcast(sender.key, broadcast.id)).toMatchObject({ status: 'paused', counts: { sent: 2 } });

    const resumed = await sendWith(sender.testKey, broadcast.id);
    await drainBroadcastQueue();

    expect(resumed.status).toBe(202);
    expect(await readBroadcast(sender.key, broadcast.id)).toMatchObject({ status: 'sent', counts: { recipients: 4, sent: 4, remaining: 0 } });
    expect(await storedEmails(sender.domain)).toHaveLength(2);
    expect((await showAccount(sender.accountId))?.emailsSent).toBe(2);
    const records = await broadcastRecords(sender.key, broadcast.id);
    expect(records.map((record) => [record.status, record.test]).sort()).toEqual([
      ['sent', false],
      ['sent', false],
      ['sent', true],
      ['sent', true],
    ]);
  });

  it('scheduled with a test key, it runs as a test when the scheduler fires it, and never pauses for a quota used up', async () => {
    const sender = await createSender({ quota: 1 });
    await reserveEmails(sender.accountId, quotaPeriod(new Date()), 1, 1);
    const { audienceId, contacts } = await mixedAudience(sender, 12);
    // Made with the live key: the key that schedules it decides.
    const broadcast = await createBroadcast(sender, { audienceId, content: CONTENT });
    const at = inAnHour();

    expect((await sendWith(sender.testKey, broadcast.id, { scheduledAt: at.toISOString() })).body.data.status).toBe('scheduled');
    await localScheduler().fireDue(at);
    await drainBroadcastQueue();

    const subscribed = contacts.filter((contact) => contact.status === 'subscribed').length;
    expect(await readBroadcast(sender.key, broadcast.id)).toMatchObject({ status: 'sent', counts: { sent: subscribed } });
    expect(await storedEmails(sender.domain)).toEqual([]);
    expect((await showAccount(sender.accountId))?.emailsSent).toBe(1);
    expect((await broadcastRecords(sender.key, broadcast.id)).every((record) => record.test)).toBe(true);
  });

  it('made and scheduled with a test key, then sent now with the live key, it sends for real', async () => {
    const sender = await createSender();
    const { audienceId, contacts } = await mixedAudience(sender, 6);
    const broadcast = await createBroadcast(sender, { audienceId, content: CONTENT }, sender.testKey);
    await sendWith(sender.testKey, broadcast.id, { scheduledAt: inAnHour().toISOString() });

    const started = await sendWith(sender.key, broadcast.id, { scheduledAt: new Date(Date.now() - 60_000).toISOString() });
    await drainBroadcastQueue();

    expect(started.body.data.status).toBe('sending');
    const subscribed = contacts.filter((contact) => contact.status === 'subscribed');
    expect(await storedEmails(sender.domain)).toHaveLength(subscribed.length);
    expect((await broadcastRecords(sender.key, broadcast.id)).some((record) => record.test)).toBe(false);
  });
});
