/**
 * Pacing (docs/broadcasts.md, "Pacing"): an account's send rate, set with the
 * admin CLI, holds across all its broadcasts, measured at the SES client while
 * the worker runs as `npm start` runs it; SES throttling makes a batch come
 * back later, each time a little later, and never fails a message. The SES
 * rate of the region is tested in pacing-ses-rate.test.ts, with an emulator of
 * its own (the region's bucket is shared by every test file that sends).
 */
import { TooManyRequestsException, type SendEmailCommand } from '@aws-sdk/client-sesv2';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ses } from '#shared/sending/transport.ts';
import { request } from '../support/api.ts';
import { admin } from '../support/admin-cli.ts';
import { eventually } from '../support/eventually.ts';
import { configureFile } from '../support/worker.ts';
import { createSender, storedEmails } from '../sending/support.ts';
import { broadcastWhen, createBroadcast, expectPacedAt, mixedAudience, queuedSteps, sendBroadcast, workersWithSendTimes } from './support.ts';

// Short enough for a test to see two throttled attempts back off (1 s, then 2 s).
configureFile({ BROADCAST_THROTTLE_DELAY_SECONDS: '1' });

const sendTimes = workersWithSendTimes();
afterEach(() => {
  vi.restoreAllMocks();
});

type Sender = Awaited<ReturnType<typeof createSender>>;

async function setSendRate(accountId: string, rate: string): Promise<void> {
  const set = await admin(['account', 'set-send-rate', '--account', accountId, '--rate', rate]);
  expect(set).toMatchObject({ code: 0, stderr: '' });
}

async function expectOneEach(sender: Sender, expected: readonly string[]): Promise<void> {
  const to = (await storedEmails(sender.domain)).map((email) => email.destination.to[0]!);
  expect(to.sort()).toEqual([...expected].sort());
}

describe("an account's send rate", { timeout: 60_000 }, () => {
  // Rates low enough that these machines, unpaced, send faster (about 5 a second through DynamoDB Local), so only pacing passes.
  it('paces a broadcast to the rate set with the admin CLI, and still mails each recipient exactly once', async () => {
    const sender = await createSender();
    await setSendRate(sender.accountId, '3');

    const { id, subscribed } = await sendBroadcast(sender, 20);

    expect((await broadcastWhen(sender.key, id, ['sent'])).counts).toMatchObject({ sent: subscribed.length, failed: 0 });
    expect(subscribed).toHaveLength(13);
    expectPacedAt(sendTimes.of(sender.domain), 3);
    await expectOneEach(sender, subscribed);
  });

  it("is shared by all the account's broadcasts at once", async () => {
    const sender = await createSender();
    await setSendRate(sender.accountId, '3');

    const [first, second] = await Promise.all([sendBroadcast(sender, 10), sendBroadcast(sender, 10)]);

    for (const { id, subscribed } of [first, second]) {
      expect((await broadcastWhen(sender.key, id, ['sent'])).counts).toMatchObject({ sent: subscribed.length, failed: 0 });
    }
    expectPacedAt(sendTimes.of(sender.domain), 3);
    await expectOneEach(sender, [...first.subscribed, ...second.subscribed]);
  });

  it('plans the next page of a large broadcast about a minute before the pages so far are sent at that rate, not at once', async () => {
    const sender = await createSender();
    await setSendRate(sender.accountId, '3');
    // More than a page (1,000) of subscribed contacts.
    const { audienceId } = await mixedAudience(sender, 1_700);
    const broadcast = await createBroadcast(sender, { audienceId, content: '<p>Hi {{firstName}}</p>' });
    const plans = await queuedSteps('plan');

    const startedAt = Date.now();
    await request('POST', `/api/broadcasts/${broadcast.id}/send`, { key: sender.key, body: {} });
    const [second] = await eventually(
      // The send's own step starts the first page; the planner's starts the second.
      async () => plans.filter(({ step }) => step.broadcastId === broadcast.id && step.after !== undefined),
      (queued) => queued.length > 0,
      20_000,
    );
    await request('POST', `/api/broadcasts/${broadcast.id}/cancel`, { key: sender.key, body: {} });

    // The first page: 1,000 subscribed contacts in 20 batches, which at 3 a second take 333 s to send.
    const sendSeconds = 1_000 / 3;
    expect(second!.step).toMatchObject({ recipients: 1_000, batch: 20 });
    expect(second!.step.due).toBeGreaterThanOrEqual(startedAt + sendSeconds * 1000);
    expect(second!.step.due).toBeLessThanOrEqual(Date.now() + sendSeconds * 1000);
    expect(second!.delaySeconds).toBeGreaterThanOrEqual(Math.floor(sendSeconds - 60 - 20));
    expect(second!.delaySeconds).toBeLessThanOrEqual(Math.ceil(sendSeconds - 60));
  });

  it('no longer holds once removed with --rate none', async () => {
    const sender = await createSender();
    await setSendRate(sender.accountId, '0.5');
    await setSendRate(sender.accountId, 'none');

    const { id, subscribed } = await sendBroadcast(sender, 10);

    expect((await broadcastWhen(sender.key, id, ['sent'])).counts).toMatchObject({ sent: subscribed.length });
    // At half a message a second these 7 would take 12 s; unpaced (the region's rate is far above) they leave within a few.
    const times = sendTimes.of(sender.domain);
    expect(Math.max(...times) - Math.min(...times)).toBeLessThan(6_000);
  });
});

/**
 * A broadcast of 12 mixed contacts, sent, while SES refuses the first `times`
 * attempts at its first recipient's message, as at its maximum rate. Reports
 * the refusals and the batch steps queued again after SES throttled them
 * (how many times in a row, and the delay), and awaits the broadcast `sent`.
 */
async function sendThrottled(times: number) {
  const sender = await createSender();
  const { audienceId, contacts } = await mixedAudience(sender, 12);
  const subscribed = contacts.filter((contact) => contact.status === 'subscribed').map((contact) => contact.email);
  const broadcast = await createBroadcast(sender, { audienceId, content: '<p>Hi {{firstName}}</p>' });
  const original = ses.send.bind(ses);
  let refusals = 0;
  vi.spyOn(ses, 'send').mockImplementation((async (command: SendEmailCommand) => {
    if (command.input.Destination?.ToAddresses?.[0] === subscribed[0] && refusals < times) {
      refusals++;
      throw new TooManyRequestsException({ message: 'Maximum sending rate exceeded.', $metadata: {} });
    }
    return original(command);
  }) as typeof ses.send);
  const queued = await queuedSteps('batch');

  await request('POST', `/api/broadcasts/${broadcast.id}/send`, { key: sender.key, body: {} });

  const { counts } = await broadcastWhen(sender.key, broadcast.id, ['sent']);
  const requeued = queued
    .filter(({ step }) => step.broadcastId === broadcast.id && 'throttled' in step)
    .map(({ step, delaySeconds }) => ({ throttled: step.throttled, delaySeconds }));
  return { sender, subscribed, counts, refusals, requeued };
}

describe('SES throttling', { timeout: 60_000 }, () => {
  it('sends a message SES throttled once again at the next free slot, within the same attempt: nothing goes back to the queue', async () => {
    const { sender, subscribed, counts, refusals, requeued } = await sendThrottled(1);

    expect(counts).toMatchObject({ sent: subscribed.length, failed: 0 });
    expect(refusals).toBe(1);
    expect(requeued).toEqual([]);
    await expectOneEach(sender, subscribed);
  });

  it('sends a batch whose message SES throttled again back to the queue, waiting longer after each such attempt, and fails no message', async () => {
    // Refused and refused again on retry, in each of two attempts.
    const { sender, subscribed, counts, refusals, requeued } = await sendThrottled(4);

    expect(counts).toMatchObject({ sent: subscribed.length, failed: 0 });
    expect(refusals).toBe(4);
    expect(requeued).toEqual([
      { throttled: 1, delaySeconds: 1 },
      { throttled: 2, delaySeconds: 2 },
    ]);
    await expectOneEach(sender, subscribed);
  });
});
