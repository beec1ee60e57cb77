/**
 * The region's SES rate (docs/broadcasts.md, "Pacing"): read from SES
 * (GetAccount), less the headroom left to interactive sends, it caps all
 * broadcasts of every account together. This file runs an SES emulator of its
 * own, reporting a low rate: the region's bucket belongs to the SES endpoint,
 * so the other test files' sending does not share it.
 */
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  // Broadcasts may use half of SES's rate: 6 a second reported, 3 paced.
  process.env.SES_RATE_HEADROOM = '0.5';
});

const { startSesEmulator } = await import('#dev/local/ses.ts');
const ownSes = await startSesEmulator({ port: 0, maxSendRate: 6 });
// Before anything reads shared/platform/config.ts.
process.env.SES_ENDPOINT = ownSes.endpoint;

const { reserveBucketTime, sesRateKey } = await import('#shared/broadcasts/send-rate-store.ts');
const { RESERVE_AHEAD_MS, sesRateScope } = await import('#shared/broadcasts/pacing.ts');
const { createSender, sendPlain, storedEmails, uniqueAddress } = await import('../sending/support.ts');
const { broadcastWhen, expectPacedAt, queuedSteps, sendBroadcast, workersWithSendTimes } = await import('./support.ts');
const { eventually } = await import('../support/eventually.ts');

const sendTimes = workersWithSendTimes();
afterEach(() => {
  vi.restoreAllMocks();
});
afterAll(async () => {
  await ownSes.stop();
});

describe("the region's SES rate", { timeout: 60_000 }, () => {
  it('caps the broadcasts of two accounts together at SES’s rate less the headroom, each recipient mailed once', async () => {
    const [ann, bob] = await Promise.all([createSender(), createSender()]);

    const broadcasts = await Promise.all([sendBroadcast(ann, 10), sendBroadcast(bob, 10)]);

    for (const [index, sender] of [ann, bob].entries()) {
      const { id, subscribed } = broadcasts[index]!;
      expect((await broadcastWhen(sender.key, id, ['sent'])).counts).toMatchObject({ sent: subscribed.length, failed: 0 });
      const to = (await storedEmails(sender.domain, ownSes.endpoint)).map((email) => email.destination.to[0]!);
      expect(to.sort()).toEqual([...subscribed].sort());
    }
    expectPacedAt([...sendTimes.of(ann.domain), ...sendTimes.of(bob.domain)], 3);
  });

  it('reserves each batch its window once: batches queued together wait on the queue for their windows instead of coming back to try again', async () => {
    const senders = await Promise.all(Array.from({ length: 4 }, () => createSender()));
    const queued = await queuedSteps('batch');

    const broadcasts = await Promise.all(senders.map((sender) => sendBroadcast(sender, 10)));

    for (const [index, sender] of senders.entries()) {
      const { id, subscribed } = broadcasts[index]!;
      expect((await broadcastWhen(sender.key, id, ['sent'])).counts).toMatchObject({ sent: subscribed.length, failed: 0 });
    }
    // About 28 messages at 3 a second: every batch but the first has its window seconds ahead, and is put back once, with it.
    const ours = queued.filter(({ step }) => broadcasts.some(({ id }) => id === step.broadcastId));
    const putBack = ours.filter(
      ({ step }, index) => ours.findIndex((first) => first.step.broadcastId === step.broadcastId && first.step.batch === step.batch) < index,
    );
    expect(putBack.length).toBeGreaterThan(0);
    expect(putBack.every(({ step }) => step.window !== undefined)).toBe(true);
    expect(new Set(putBack.map(({ step }) => step.broadcastId)).size).toBe(putBack.length);
    expectPacedAt(
      senders.flatMap((sender) => sendTimes.of(sender.domain)),
      3,
    );
  });

  // The two tests below book the region's bucket far ahead, so they come last.
  it('reserves a window a minute ahead and waits on the queue for it, sending nothing and failing nothing meanwhile, while interactive sends go at once', async () => {
    const sender = await createSender();
    // Other broadcasts of the region have reserved the next minute.
    const booked = await reserveBucketTime(sesRateKey(sesRateScope()), 60_000, Date.now(), RESERVE_AHEAD_MS);
    const queued = await queuedSteps('batch');

    const { id } = await sendBroadcast(sender, 10);
    const direct = await sendPlain(sender, [uniqueAddress()]);

    // Not paced: SES's own rate and the retry queue cover interactive sends, within the headroom.
    expect(direct.status).toBe(200);
    expect(direct.body).toMatchObject({ success: true, recipientCount: 1 });
    expect(direct.body.successfulEmails[0].queued).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const held = await broadcastWhen(sender.key, id, ['sending']);
    expect(held.counts).toMatchObject({ sent: 0, failed: 0 });
    expect((await storedEmails(sender.domain, ownSes.endpoint)).map((email) => email.subject)).toEqual(['Hi']);
    // Its window follows the booked minute, and the step carries it back to the queue, due just before it opens.
    const [planned, back, ...more] = queued.filter(({ step }) => step.broadcastId === id);
    expect(planned!.step.window).toBeUndefined();
    expect(more).toEqual([]);
    const opens = Math.max(...back!.step.window.spans.map(([start]: number[]) => start));
    expect(opens).toBeGreaterThanOrEqual('end' in booked ? booked.end : Number.NaN);
    expect(back!.delaySeconds).toBeGreaterThan(50);
    expect(back!.delaySeconds).toBeLessThanOrEqual(60);
  });

  it('reserves nothing beyond two minutes ahead: the batch comes back once half of that is sent', async () => {
    const sender = await createSender();
    // The region's bucket is booked three minutes ahead.
    await reserveBucketTime(sesRateKey(sesRateScope()), 180_000, Date.now(), 10 * RESERVE_AHEAD_MS);
    const queued = await queuedSteps('batch');

    const { id } = await sendBroadcast(sender, 10);

    const [, back] = await eventually(
      async () => queued.filter(({ step }) => step.broadcastId === id),
      (steps) => steps.length > 1,
      10_000,
    );
    expect(back!.step.window).toBeUndefined();
    // Booked at least 3 minutes ahead, of which 1 minute (half the reach) is left when it comes back.
    expect(back!.delaySeconds).toBeGreaterThanOrEqual(115);
    expect(back!.delaySeconds).toBeLessThanOrEqual(125 + 65);
    expect((await broadcastWhen(sender.key, id, ['sending'])).counts).toMatchObject({ sent: 0, failed: 0 });
  });
});
