/**
 * GET /api/stats (issue 30): counts per UTC day kept as the email events are
 * recorded, from real sends through the SES emulator and SES's own
 * notifications fed through the feedback worker; each message counts once
 * per outcome, however often SES delivers the news, and test keys' sends
 * never count. Reading a range is one Query beside the key check, this
 * month's usage of the quota included.
 */
import { MessageRejected } from '@aws-sdk/client-sesv2';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { meterDynamoDb } from '../../bench/dynamo-meter.ts';
import { request } from '../support/api.ts';
import { createSender, sesFailsFor, uniqueAddress, type Sender } from '../sending/support.ts';
import { feedback, sendOne, sesEventFor } from '../events/support.ts';
import { broadcastWhen, createBroadcast, drainBroadcastQueue, mixedAudience, queuedSteps, sendBroadcast, sendWith } from '../broadcasts/support.ts';
import { runStep } from '#shared/broadcasts/engine.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

const meter = meterDynamoDb();

const day = (offset = 0) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

async function stats(sender: Pick<Sender, 'key'>, query = '') {
  const response = await request('GET', `/api/stats${query}`, { key: sender.key });
  expect(response.status).toBe(200);
  return response.body.data;
}

/** The first instant of next month, UTC: when the quota starts again. */
const nextMonth = () => new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() + 1, 1)).toISOString();

const ZERO = { sent: 0, delivered: 0, bounced: 0, complained: 0, opened: 0, clicked: 0, failed: 0 };

describe('GET /api/stats', () => {
  it('counts each message once per outcome, from sends and SES feedback delivered twice, with rates of the messages sent', async () => {
    const sender = await createSender();
    const tracking = { tracking: { opens: true, clicks: true } };
    const [delivered, bounced, complained, quiet] = await Promise.all([sendOne(sender, tracking), sendOne(sender), sendOne(sender), sendOne(sender)]);
    const refused = uniqueAddress('refused');
    sesFailsFor(refused, () => new MessageRejected({ message: 'Email address is not verified.', $metadata: {} }));
    await request('POST', '/api/email/send', { key: sender.key, body: { from: sender.from, recipients: [refused], subject: 'Hi', content: '<p>Hi</p>' } });
    // A test key's sends never count, however many.
    await Promise.all([sendOne(sender, {}, sender.testKey), sendOne(sender, {}, sender.testKey)]);
    const at = (seconds: number) => new Date(Date.now() + seconds * 1000);
    const news = [
      sesEventFor(sender, delivered, 'Delivery'),
      sesEventFor(sender, delivered, 'Open', at(1), { tracking: 'opens-clicks' }),
      sesEventFor(sender, delivered, 'Open', at(2), { tracking: 'opens-clicks' }),
      sesEventFor(sender, delivered, 'Click', at(3), { tracking: 'opens-clicks', link: 'https://example.com/a' }),
      sesEventFor(sender, delivered, 'Click', at(4), { tracking: 'opens-clicks', link: 'https://example.com/b' }),
      sesEventFor(sender, bounced, 'Bounce'),
      sesEventFor(sender, complained, 'Delivery'),
      sesEventFor(sender, complained, 'Complaint'),
      sesEventFor(sender, quiet, 'DeliveryDelay'),
    ];

    for (const event of news) await feedback(event);
    // SES and EventBridge deliver at least once: the same notifications again count nothing.
    for (const event of news) await feedback(event);
    const { days, totals, rates } = await stats(sender);

    expect(totals).toEqual({ sent: 4, delivered: 2, bounced: 1, complained: 1, opened: 1, clicked: 1, failed: 1 });
    expect(rates).toEqual({ deliveryRate: 50, bounceRate: 25, complaintRate: 25, openRate: 25, clickRate: 25 });
    expect(days).toHaveLength(30);
    expect(days.at(-1).date).toBe(day());
    expect(days[0].date).toBe(day(-29));
  });

  it('answers rates in percent of the messages sent, and zeros and 0 rates for an account that sent nothing', async () => {
    const [sender, idle] = await Promise.all([createSender(), createSender()]);
    const [email] = await Promise.all([sendOne(sender), sendOne(sender), sendOne(sender), sendOne(sender)]);
    await feedback(sesEventFor(sender, email, 'Bounce'));

    const counted = await stats(sender);
    const nothing = await stats(idle, `?startDate=${day(-6)}&endDate=${day()}`);

    expect(counted.totals).toEqual({ ...ZERO, sent: 4, bounced: 1 });
    expect(counted.rates).toEqual({ deliveryRate: 0, bounceRate: 25, complaintRate: 0, openRate: 0, clickRate: 0 });
    expect(nothing).toEqual({
      days: Array.from({ length: 7 }, (_, index) => ({ date: day(index - 6), ...ZERO })),
      totals: ZERO,
      rates: { deliveryRate: 0, bounceRate: 0, complaintRate: 0, openRate: 0, clickRate: 0 },
      usage: { month: day().slice(0, 7), sent: 0, quota: 1_000_000, resetsAt: nextMonth() },
    });
  });

  it("answers this month's usage of the quota whatever the range, in the same Query when the range reaches the month", async () => {
    const sender = await createSender({ quota: 5 });
    const sends = await Promise.all([sendOne(sender), sendOne(sender), sendOne(sender, {}, sender.testKey)]);
    const last = await request('POST', '/api/email/send', {
      key: sender.key,
      body: { from: sender.from, recipients: [uniqueAddress()], subject: 'Hi', content: '<p>Hi</p>' },
    });
    // The month before this one, for a range that does not reach it.
    const lastMonthEnd = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), 0)).toISOString().slice(0, 10);

    meter.reset();
    const current = await stats(sender);
    const currentUsage = meter.usage();
    const past = await stats(sender, `?startDate=${lastMonthEnd}&endDate=${lastMonthEnd}`);
    const fromLater = await stats(sender, `?startDate=${day()}`);

    const usage = { month: day().slice(0, 7), sent: 3, quota: 5, resetsAt: nextMonth() };
    expect(sends).toHaveLength(3);
    // What the send path itself says is left: the meter counts from the same item.
    expect(last.body.emailsRemaining).toBe(usage.quota - usage.sent);
    expect([current.usage, past.usage, fromLater.usage]).toEqual([usage, usage, usage]);
    expect(fromLater.days).toHaveLength(1);
    expect(currentUsage).toMatchObject({ roundTrips: 2, operations: ['UpdateItem', 'Query'] });
  });

  it('answers a given range of UTC days, up to 90, and refuses a reversed, longer or malformed one on the field', async () => {
    const sender = await createSender();
    await sendOne(sender);

    const ninety = await stats(sender, `?startDate=${day(-89)}&endDate=${day()}`);
    const fromOnly = await stats(sender, `?startDate=${day(-2)}`);
    const refusals = await Promise.all(
      [
        `?startDate=${day()}&endDate=${day(-1)}`,
        `?startDate=${day(-90)}&endDate=${day()}`,
        `?startDate=${day(-90)}`,
        `?startDate=${day(1)}`,
        '?endDate=2026-02-30',
        `?startDate=${day()}T00:00:00Z`,
      ].map((query) => request('GET', `/api/stats${query}`, { key: sender.key })),
    );

    expect(ninety.days).toHaveLength(90);
    expect(ninety.totals.sent).toBe(1);
    expect(fromOnly.days.map((one: { date: string }) => one.date)).toEqual([day(-2), day(-1), day()]);
    expect(refusals.map(({ status, body }) => [status, body.error, body.field])).toEqual([
      [422, 'VALIDATION_ERROR', 'startDate'],
      [422, 'VALIDATION_ERROR', 'startDate'],
      [422, 'VALIDATION_ERROR', 'startDate'],
      [422, 'VALIDATION_ERROR', 'startDate'],
      [422, 'VALIDATION_ERROR', 'endDate'],
      [422, 'VALIDATION_ERROR', 'startDate'],
    ]);
  });

  it("counts a broadcast's messages once, in its batches' own settlement, however often a batch runs; a test broadcast counts nothing", async () => {
    const sender = await createSender();
    const batches = await queuedSteps('batch');
    const { id, subscribed } = await sendBroadcast(sender, 12);
    await drainBroadcastQueue();
    await broadcastWhen(sender.key, id, ['sent']);
    // SQS delivers at least once: each batch step again.
    for (const { step } of batches) await runStep(step as never, new Date());
    const { audienceId } = await mixedAudience(sender, 4);
    const rehearsal = await createBroadcast(sender, { audienceId, content: '<p>Hi</p>' }, sender.testKey);
    expect((await sendWith(sender.testKey, rehearsal.id)).status).toBe(202);
    await drainBroadcastQueue();
    await broadcastWhen(sender.key, rehearsal.id, ['sent']);

    expect(batches.length).toBeGreaterThan(0);
    expect((await stats(sender)).totals).toEqual({ ...ZERO, sent: subscribed.length });
  });

  it("reads 90 days in one DynamoDB call beside the key check, and never another account's counts", async () => {
    const [sender, other] = await Promise.all([createSender(), createSender()]);
    await Promise.all([sendOne(sender), sendOne(other), sendOne(other)]);

    meter.reset();
    const { totals } = await stats(sender, `?startDate=${day(-89)}&endDate=${day()}`);
    const usage = meter.usage();

    expect(totals.sent).toBe(1);
    expect(usage).toMatchObject({ roundTrips: 2, operations: ['UpdateItem', 'Query'] });
  });
});
