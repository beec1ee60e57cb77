/**
 * The region's SES rate (docs/broadcasts.md, "Pacing"): read from SES
 * (GetAccount), less the headroom left to interactive sends, it caps all
 * broadcasts of every account together. This file runs an SES emulator of its
 * own, reporting a low rate: the region's bucket belongs to the SES endpoint,
 * so the other test files' sending does not share it.
 */
import { afterAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  // Broadcasts may use half of SES's rate: 6 a second reported, 3 paced.
  process.env.SES_RATE_HEADROOM = '0.5';
});

const { startSesEmulator } = await import('#dev/local/ses.ts');
const ownSes = await startSesEmulator({ port: 0, maxSendRate: 6 });
// Before anything reads shared/config.ts.
process.env.SES_ENDPOINT = ownSes.endpoint;

const { reserveBucketTime, sesRateKey } = await import('#shared/data/send-rates.ts');
const { sesRateScope } = await import('#shared/domain/send-pacing.ts');
const { createSender, sendPlain, storedEmails, uniqueAddress } = await import('../sending/support.ts');
const { broadcastWhen, expectPacedAt, sendBroadcast, workersWithSendTimes } = await import('./support.ts');

const sendTimes = workersWithSendTimes();
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

  it('holds a batch whose window opens too late on the queue, sending nothing and failing nothing, while interactive sends go at once', async () => {
    const sender = await createSender();
    // Other broadcasts of the region have reserved the next minute.
    await reserveBucketTime(sesRateKey(sesRateScope()), 60_000, Date.now(), 120_000);

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
  });
});
