/**
 * From an event to a receiver: fan-out to subscribed endpoints (the table's
 * stream read by test/webhooks/support.ts) over this file's queue (the local SQS stand-in), signed deliveries checked by a real
 * receiver with the `standardwebhooks` package, the retry schedule walked by
 * passing `now` (no waiting), disabling after 24 hours of failures, the
 * attempt log and manual retries.
 */
import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import type { Receiver } from './support.ts';
import { recordEvent, listEvents } from '#shared/events/service.ts';
import { createWebhook, getDeliveryWithAttempts, getWebhook, listDeliveries, retryDelivery, sendTestEvent, updateWebhook } from '#shared/webhooks/service.ts';
import { deliverWebhook } from '#shared/webhooks/deliver.ts';
import { attemptPartition, claimAttempt, getDelivery } from '#shared/webhooks/store.ts';
import { queryAll } from '#shared/platform/dynamodb/client.ts';
import { retentionExpiry } from '#shared/platform/retention.ts';
import { encodeDeliveryMessage, queueDelaySeconds } from '#shared/webhooks/queue.ts';
import { RETRY_DELAYS_SECONDS, MAX_ATTEMPTS } from '#shared/webhooks/schedule.ts';
import { sqsEvent } from '#dev/local/queue-poller.ts';
import { invokedAs } from '#dev/local/invocation.ts';
import { handler } from '#functions/webhooks/deliver.ts';
import { createTestAccount } from '../support/accounts.ts';
import { openEventStream, receiversPerTest, refusal, takeMessages, walk } from './support.ts';

await openEventStream();

const DAY = 86_400_000;

type Message = Awaited<ReturnType<typeof takeMessages>>[number];

const receiver = receiversPerTest();

/** What a customer's receiver does: verify with the Standard Webhooks package, then parse. */
function verified(secret: string, request: Receiver['requests'][number]) {
  return new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as {
    id: string;
    type: string;
    createdAt: string;
    data: Record<string, unknown>;
  };
}

let sequence = 0;
function bounce(emailId = 'eml_b') {
  sequence += 1;
  return {
    type: 'email.bounced' as const,
    data: { emailId, to: 'x@example.com', bounce: { type: 'Permanent', subType: 'General' } },
    sourceKey: `ses:msg-${sequence}-${Math.random()}:Bounce:x@example.com`,
  };
}

/**
 * Arrange: an account whose one endpoint takes every event at a receiver
 * answering as `respond` says, one bounce recorded, and its delivery's first message.
 */
async function oneDelivery(respond?: Parameters<typeof receiver>[0]) {
  const { accountId } = await createTestAccount();
  const target = await receiver(respond);
  const webhook = await createWebhook(accountId, { url: target.url, events: ['*'] }, Date.now());
  const { event } = await recordEvent(accountId, bounce(), Date.now());
  const [message] = await takeMessages(accountId);
  return { accountId, target, webhook, event, message: message! };
}

describe('fan-out', () => {
  it('queues one delivery per enabled endpoint subscribed to the type, and none for the others', async () => {
    const { accountId } = await createTestAccount();
    const url = (await receiver()).url;
    const all = await createWebhook(accountId, { url, events: ['*'] }, Date.now());
    const bounces = await createWebhook(accountId, { url, events: ['email.bounced', 'email.complained'] }, Date.now());
    await createWebhook(accountId, { url, events: ['contact.created'] }, Date.now());
    const off = await createWebhook(accountId, { url, events: ['*'] }, Date.now());
    await updateWebhook(accountId, off.id, { enabled: false }, Date.now());
    const { event } = await recordEvent(accountId, bounce(), Date.now());
    const messages = await takeMessages(accountId);
    expect(messages.map((message) => message.webhookId).sort()).toEqual([all.id, bounces.id].sort());
    expect(messages.every((message) => message.attempt === 1)).toBe(true);
    const { deliveries } = await listDeliveries(accountId, all.id, { limit: 10 }, Date.now());
    expect(deliveries).toEqual([expect.objectContaining({ eventId: event.id, eventType: 'email.bounced', status: 'pending', attempts: 0 })]);
  });

  it('does not deliver a replayed change again', async () => {
    const { accountId } = await createTestAccount();
    const target = await receiver();
    const webhook = await createWebhook(accountId, { url: target.url, events: ['*'] }, Date.now());
    const change = bounce();
    await recordEvent(accountId, change, Date.now());
    for (const message of await takeMessages(accountId)) await deliverWebhook(message, Date.now());
    await recordEvent(accountId, change, Date.now());
    expect(await takeMessages(accountId)).toEqual([]);
    expect(target.requests).toHaveLength(1);
    expect((await listDeliveries(accountId, webhook.id, { limit: 10 }, Date.now())).deliveries).toHaveLength(1);
  });
});

describe('delivery', () => {
  it('POSTs the event JSON with Standard Webhooks headers that verify with the endpoint secret', async () => {
    const { accountId } = await createTestAccount();
    const target = await receiver();
    const { secret, id } = await createWebhook(accountId, { url: target.url, events: ['email.bounced'] }, Date.now());
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64').length).toBeGreaterThanOrEqual(24);
    const { event } = await recordEvent(accountId, bounce('eml_signed'), Date.now());
    const [message] = await takeMessages(accountId);
    await deliverWebhook(message!, Date.now());
    const [request] = target.requests;
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['webhook-id']).toBe(event.id);
    expect(verified(secret, request!)).toEqual(event);
    // Another endpoint's secret does not verify it.
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(request!.body, request!.headers as Record<string, string>)).toThrow();
    const stored = await getDeliveryWithAttempts(accountId, id, message!.deliveryId, Date.now());
    expect(stored).toMatchObject({ status: 'succeeded', attempts: 1, lastStatusCode: 200 });
    expect(stored.nextAttemptAt).toBeNull();
  });

  it('retries a failing receiver on the schedule with the same webhook-id, until it succeeds', async () => {
    const { accountId, target, webhook, event, message: first } = await oneDelivery((_request, index) => (index < 3 ? 500 : 204));
    const { secret, id } = webhook;
    const { steps } = await walk(first);
    expect(steps.map((step) => step.attempt)).toEqual([1, 2, 3, 4]);
    // Each wait as scheduled: 5 s, 5 min, 30 min.
    expect(steps.slice(1).map((step, index) => step.notBefore - steps[index]!.notBefore)).toEqual(
      RETRY_DELAYS_SECONDS.slice(0, 3).map((seconds) => seconds * 1000),
    );
    expect(target.requests.map((request) => request.headers['webhook-id'])).toEqual([event.id, event.id, event.id, event.id]);
    // A receiver can deduplicate by id: every attempt carries the same, verified, payload.
    const payloads = target.requests.map((request) => verified(secret, request));
    expect(new Set(payloads.map((payload) => payload.id)).size).toBe(1);
    const stored = await getDeliveryWithAttempts(accountId, id, first.deliveryId, Date.now());
    expect(stored).toMatchObject({ status: 'succeeded', attempts: 4, lastStatusCode: 204 });
    expect(stored.attemptLog.map((attempt) => [attempt.attempt, attempt.statusCode])).toEqual([
      [1, 500],
      [2, 500],
      [3, 500],
      [4, 204],
    ]);
  });

  it("holds a message that surfaces early: put back with what is left of the wait, at most SQS's 15 minutes", async () => {
    const { accountId, target, webhook, message: first } = await oneDelivery(() => 500);
    const now = Date.now();
    const next = await deliverWebhook(first, now);
    expect(next).toMatchObject({ action: 'enqueue', message: { attempt: 2, notBefore: now + 5_000 } });
    const message = (next as { message: Message }).message;
    // Surfacing a second early does nothing but go back on the queue.
    expect(await deliverWebhook(message, now + 4_000)).toEqual({ action: 'enqueue', message });
    expect(target.requests).toHaveLength(1);
    expect(queueDelaySeconds(message.notBefore, now + 4_000)).toBe(1);
    expect(queueDelaySeconds(now + 10 * 3600_000, now)).toBe(900);
    const stored = await getDeliveryWithAttempts(accountId, webhook.id, first.deliveryId, now);
    expect(stored).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: 500, nextAttemptAt: new Date(now + 5_000).toISOString() });
  });

  it('makes each attempt once when its message arrives twice', async () => {
    const { target, message } = await oneDelivery();
    const outcomes = await Promise.all([deliverWebhook(message, Date.now()), deliverWebhook(message, Date.now())]);
    expect(outcomes.map((outcome) => (outcome as { outcome: string }).outcome).sort()).toEqual(['duplicate', 'succeeded']);
    expect(target.requests).toHaveLength(1);
  });

  it('makes the attempt of a worker that died mid-way once its lease has run out, and not before', async () => {
    const { accountId, target, webhook, message } = await oneDelivery();
    const now = Date.now();
    // The dead worker's claim: attempt 1 taken, no outcome recorded.
    expect(await claimAttempt(accountId, webhook.id, message.deliveryId, 1, now, now + 30_000)).toBeDefined();
    expect(await deliverWebhook(message, now + 1_000)).toMatchObject({ outcome: 'duplicate' });
    // SQS hands the message out again after its visibility timeout, longer than the lease.
    expect(await deliverWebhook(message, now + 31_000)).toMatchObject({ outcome: 'succeeded' });
    expect(target.requests).toHaveLength(1);
    expect(await getDeliveryWithAttempts(accountId, webhook.id, message.deliveryId, now)).toMatchObject({ status: 'succeeded', attempts: 1 });
  });

  it('marks a delivery failed after the last scheduled attempt', async () => {
    const { accountId, target, webhook, message: first } = await oneDelivery(() => 503);
    const { steps } = await walk(first);
    expect(steps).toHaveLength(MAX_ATTEMPTS);
    expect(target.requests).toHaveLength(8);
    const stored = await getDeliveryWithAttempts(accountId, webhook.id, first.deliveryId, Date.now());
    expect(stored).toMatchObject({ status: 'failed', attempts: 8, lastStatusCode: 503 });
    expect(stored.attemptLog).toHaveLength(8);
  });

  it("keeps a delivery and each of its attempts for RETENTION_DAYS (30 by default) from the delivery's creation: the TTL is set on every item", async () => {
    const { accountId } = await createTestAccount();
    const target = await receiver((_request, index) => (index === 0 ? 500 : 200));
    // Made two days ago: the attempts, made now, still expire with the delivery they belong to (they are only read through it).
    const createdAt = Date.now() - 2 * DAY;
    const { id } = await createWebhook(accountId, { url: target.url, events: ['*'] }, createdAt);
    await recordEvent(accountId, bounce(), createdAt);
    const [first] = await takeMessages(accountId);
    expect((await walk(first!)).steps).toHaveLength(2);

    const delivery = await getDelivery(accountId, id, first!.deliveryId);
    const expiresAt = Math.floor(createdAt / 1000) + 30 * 86_400;
    expect(Date.parse(delivery!.createdAt)).toBe(createdAt);
    expect(delivery!.expiresAt).toBe(retentionExpiry(createdAt));
    expect(delivery!.expiresAt).toBe(expiresAt);
    const attempts = await queryAll({
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': attemptPartition(accountId, first!.deliveryId) },
    });
    expect(attempts.map((attempt) => [attempt.attempt, attempt.expiresAt])).toEqual([
      [1, expiresAt],
      [2, expiresAt],
    ]);
  });
});

describe('disabling', () => {
  it('disables an endpoint after 24 hours of failures, records webhook.disabled once and delivers it elsewhere', async () => {
    const { accountId } = await createTestAccount();
    const dead = await receiver(() => 500);
    const watcher = await receiver();
    const failing = await createWebhook(accountId, { url: dead.url, events: ['email.bounced'] }, Date.now());
    const watching = await createWebhook(accountId, { url: watcher.url, events: ['webhook.disabled'] }, Date.now());
    await recordEvent(accountId, bounce(), Date.now());
    const [first] = await takeMessages(accountId);
    const started = first!.notBefore;
    // Attempts at 0 s, 5 s, 5 min, 35 min, 2.6 h, 7.6 h, 17.6 h: still enabled.
    const { stopped } = await walk(first!, (step) => step.notBefore - started >= 24 * 3600_000);
    expect(await getWebhook(accountId, failing.id)).toMatchObject({ enabled: true });
    // The attempt at 27.6 h fails a day after the first failure.
    await deliverWebhook(stopped!, stopped!.notBefore);
    expect(await getWebhook(accountId, failing.id)).toMatchObject({ enabled: false, disabledAt: new Date(stopped!.notBefore).toISOString() });
    const { events } = await listEvents(accountId, { type: 'webhook.disabled', limit: 10 }, stopped!.notBefore);
    expect(events).toEqual([expect.objectContaining({ type: 'webhook.disabled', data: expect.objectContaining({ webhookId: failing.id, url: dead.url }) })]);
    const [notice] = await takeMessages(accountId);
    expect(notice!.webhookId).toBe(watching.id);
    await deliverWebhook(notice!, notice!.notBefore);
    expect(verified(watching.secret, watcher.requests[0]!)).toMatchObject({ type: 'webhook.disabled', data: { webhookId: failing.id } });
  });

  it('starts the 24 hours again after any success', async () => {
    const { accountId } = await createTestAccount();
    let healthy = false;
    const flaky = await receiver(() => (healthy ? 200 : 500));
    const webhook = await createWebhook(accountId, { url: flaky.url, events: ['*'] }, Date.now());
    const start = Date.now();
    await recordEvent(accountId, bounce(), start);
    const [first] = await takeMessages(accountId);
    await deliverWebhook(first!, start);
    healthy = true;
    await recordEvent(accountId, bounce(), start + 1000);
    const [second] = await takeMessages(accountId);
    await deliverWebhook(second!, start + 20 * 3600_000);
    healthy = false;
    await recordEvent(accountId, bounce(), start + 2000);
    const [third] = await takeMessages(accountId);
    await deliverWebhook(third!, start + 25 * 3600_000);
    expect(await getWebhook(accountId, webhook.id)).toMatchObject({ enabled: true });
  });

  it('ends the pending deliveries of a disabled endpoint without attempting them', async () => {
    const { accountId, target, webhook, message } = await oneDelivery();
    await updateWebhook(accountId, webhook.id, { enabled: false }, Date.now());
    expect(await deliverWebhook(message, Date.now())).toMatchObject({ action: 'done', outcome: 'abandoned' });
    expect(target.requests).toHaveLength(0);
    expect(await getDeliveryWithAttempts(accountId, webhook.id, message.deliveryId, Date.now())).toMatchObject({
      status: 'failed',
      attempts: 0,
      lastError: 'The webhook is disabled',
    });
  });
});

describe('deliveries and retries', () => {
  it("lists an endpoint's deliveries newest first with a cursor, and each one's attempts", async () => {
    const { accountId } = await createTestAccount();
    const target = await receiver();
    const webhook = await createWebhook(accountId, { url: target.url, events: ['*'] }, Date.now());
    const now = Date.now();
    const ids: string[] = [];
    for (let index = 0; index < 5; index++) ids.push((await recordEvent(accountId, bounce(), now + index * 1000)).event.id);
    await takeMessages(accountId);
    const first = await listDeliveries(accountId, webhook.id, { limit: 3 }, now);
    const second = await listDeliveries(accountId, webhook.id, { limit: 3, cursor: first.nextCursor! }, now);
    expect([...first.deliveries, ...second.deliveries].map((delivery) => delivery.eventId)).toEqual(ids.reverse());
    expect(second.nextCursor).toBeNull();
    expect(first.deliveries[0]).toEqual({
      id: expect.stringMatching(/^dlv_[0-9A-Za-z]{20}$/),
      webhookId: webhook.id,
      eventId: ids[0],
      eventType: 'email.bounced',
      status: 'pending',
      attempts: 0,
      lastStatusCode: null,
      lastError: null,
      nextAttemptAt: expect.any(String),
      createdAt: expect.any(String),
    });
    const other = await createTestAccount();
    const reply = await refusal(listDeliveries(other.accountId, webhook.id, { limit: 3 }, now));
    expect(reply).toMatchObject({ status: 404, body: { error: 'WEBHOOK_NOT_FOUND' } });
  });

  it('retries a failed delivery now on request, with the same webhook-id', async () => {
    let up = false;
    const { accountId, target, webhook, message: first } = await oneDelivery(() => (up ? 200 : 500));
    await walk(first);
    expect(await getDeliveryWithAttempts(accountId, webhook.id, first.deliveryId, Date.now())).toMatchObject({ status: 'failed', attempts: 8 });
    // Those 28 hours of failures disabled the endpoint; the receiver is fixed and it is enabled again.
    expect(await getWebhook(accountId, webhook.id)).toMatchObject({ enabled: false });
    await takeMessages(accountId);
    up = true;
    await updateWebhook(accountId, webhook.id, { enabled: true }, Date.now());
    const reopened = await retryDelivery(accountId, webhook.id, first.deliveryId, Date.now());
    expect(reopened).toMatchObject({ status: 'pending', attempts: 8 });
    const [manual] = await takeMessages(accountId);
    expect(manual).toMatchObject({ deliveryId: first.deliveryId, attempt: 9 });
    await deliverWebhook(manual!, Date.now());
    const stored = await getDeliveryWithAttempts(accountId, webhook.id, first.deliveryId, Date.now());
    expect(stored).toMatchObject({ status: 'succeeded', attempts: 9, lastStatusCode: 200 });
    expect(stored.attemptLog).toHaveLength(9);
    expect(new Set(target.requests.map((request) => request.headers['webhook-id'])).size).toBe(1);
  });

  it("answers unknown, malformed and other accounts' deliveries with DELIVERY_NOT_FOUND, and refuses a retry to a disabled endpoint", async () => {
    const { accountId } = await createTestAccount();
    const webhook = await createWebhook(accountId, { url: (await receiver()).url, events: ['*'] }, Date.now());
    const delivery = await sendTestEvent(accountId, webhook.id, Date.now());
    await takeMessages(accountId);
    for (const deliveryId of ['dlv_000000000000000000000', 'nope', 'dlv_0000000000AAAAAAAAAAAA']) {
      expect(await refusal(retryDelivery(accountId, webhook.id, deliveryId, Date.now()))).toMatchObject({ status: 404, body: { error: 'DELIVERY_NOT_FOUND' } });
    }
    const other = await createTestAccount();
    expect(await refusal(getDeliveryWithAttempts(other.accountId, webhook.id, delivery.id, Date.now()))).toMatchObject({
      status: 404,
      body: { error: 'DELIVERY_NOT_FOUND' },
    });
    await updateWebhook(accountId, webhook.id, { enabled: false }, Date.now());
    expect(await refusal(retryDelivery(accountId, webhook.id, delivery.id, Date.now()))).toMatchObject({ status: 409, body: { error: 'CONFLICT' } });
  });

  it('sends a webhook.test event to that endpoint only, signed like any other, and not into the event log', async () => {
    const { accountId } = await createTestAccount();
    const target = await receiver();
    const bystander = await receiver();
    const webhook = await createWebhook(accountId, { url: target.url, events: ['email.sent'] }, Date.now());
    await createWebhook(accountId, { url: bystander.url, events: ['*'] }, Date.now());
    await sendTestEvent(accountId, webhook.id, Date.now());
    const messages = await takeMessages(accountId);
    expect(messages).toHaveLength(1);
    await deliverWebhook(messages[0]!, Date.now());
    expect(verified(webhook.secret, target.requests[0]!)).toMatchObject({ type: 'webhook.test', data: { webhookId: webhook.id } });
    expect(bystander.requests).toHaveLength(0);
    expect((await listEvents(accountId, { limit: 10 }, Date.now())).events).toEqual([]);
  });
});

describe('the worker', () => {
  /** The SQS event Lambda would build for these bodies. */
  const eventOf = (bodies: string[]) =>
    sqsEvent(
      bodies.map((body, index) => ({ MessageId: `m${index}`, ReceiptHandle: `r${index}`, Body: body })),
      'arn:aws:sqs:us-east-1:000000000000:webhooks',
      'us-east-1',
    );
  /** The ids of the messages the deployed handler lists to be received again. */
  const worker = invokedAs('webhooks/deliver', handler);
  const failedIn = async (bodies: string[]) => (await worker(eventOf(bodies))).batchItemFailures.map(({ itemIdentifier }) => itemIdentifier);

  it('delivers a batch in parallel: a slow receiver does not hold up a fast one', async () => {
    const { accountId } = await createTestAccount();
    const slow = await receiver(() => (response) => setTimeout(() => response.writeHead(200).end(), 1_500));
    const fast = await receiver();
    const slowWebhook = await createWebhook(accountId, { url: slow.url, events: ['*'] }, Date.now());
    await createWebhook(accountId, { url: fast.url, events: ['*'] }, Date.now());
    await recordEvent(accountId, bounce(), Date.now());
    const messages = await takeMessages(accountId);
    // The slow one first in the batch.
    messages.sort((a, b) => Number(b.webhookId === slowWebhook.id) - Number(a.webhookId === slowWebhook.id));
    expect(messages[0]!.webhookId).toBe(slowWebhook.id);
    const started = Date.now();
    const response = await failedIn(messages.map(encodeDeliveryMessage));
    expect(response).toEqual([]);
    expect(fast.requests[0]!.at - started).toBeLessThan(1_000);
    expect(slow.requests).toHaveLength(1);
  });

  it('queues the next attempt of a failed one and reports an unreadable message as settled, never the batch', async () => {
    const { accountId, message } = await oneDelivery(() => 500);
    expect(await failedIn([encodeDeliveryMessage(message), '{"not":"ours"}'])).toEqual([]);
    // The retry waits 5 s on the queue, as SQS's DelaySeconds says.
    expect(await takeMessages(accountId)).toEqual([]);
  });
});
