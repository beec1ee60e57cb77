/**
 * The whole path as `npm start` runs it: an event written to the table
 * reaches a real receiver through the stream poller (functions/events/fan-out.ts)
 * and the queue poller (functions/webhooks/deliver.ts), both the handlers the
 * stack deploys; a failed attempt comes back from the queue by itself; a slow
 * receiver holds up nobody else.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { recordEvent } from '#shared/events/service.ts';
import { createWebhook } from '#shared/webhooks/service.ts';
import { startEventFanOut } from '#dev/local/event-fan-out.ts';
import { startWebhookWorker } from '#dev/local/webhook-worker.ts';
import { createTestAccount } from '../support/accounts.ts';
import { eventually } from '../support/eventually.ts';
import { receiversPerTest } from './support.ts';

const pollers = [await startEventFanOut(), await startWebhookWorker()];
afterAll(async () => {
  await Promise.all(pollers.map((poller) => poller.stop()));
});

const receiver = receiversPerTest();

describe('the local pipeline', () => {
  it('delivers a recorded event, signed, and a failed attempt comes back from the queue by itself', async () => {
    const { accountId } = await createTestAccount();
    const target = await receiver((_request, index) => (index === 0 ? 503 : 200));
    const webhook = await createWebhook(accountId, { url: target.url, events: ['contact.created'] }, Date.now());
    const { event } = await recordEvent(accountId, { type: 'contact.created', data: { contactId: 'con_p' }, sourceKey: `pipeline:${accountId}` }, Date.now());
    // The retry waits its 5 s on the queue.
    const requests = await eventually(
      async () => target.requests,
      (all) => all.length >= 2,
      20_000,
    );
    expect(requests).toHaveLength(2);
    for (const request of requests) {
      expect(new Webhook(webhook.secret).verify(request.body, request.headers as Record<string, string>)).toEqual(event);
    }
    expect(requests[1]!.at - requests[0]!.at).toBeGreaterThanOrEqual(4_500);
  });

  it('lets no slow receiver hold up another: each delivery is its own message', async () => {
    const { accountId } = await createTestAccount();
    // Answers within the 10 s a delivery may take, but late: its attempts keep their batch busy that long.
    const SLOW_MS = 8_000;
    const slow = await receiver(() => (response) => setTimeout(() => response.writeHead(200).end(), SLOW_MS));
    const fast = await receiver();
    await createWebhook(accountId, { url: slow.url, events: ['*'] }, Date.now());
    await createWebhook(accountId, { url: fast.url, events: ['*'] }, Date.now());
    for (let index = 0; index < 5; index++) {
      await recordEvent(accountId, { type: 'email.sent', data: { index }, sourceKey: `pipeline-slow:${accountId}:${index}` }, Date.now());
    }
    const fastRequests = await eventually(
      async () => fast.requests,
      (all) => all.length === 5,
    );
    expect(fastRequests).toHaveLength(5);
    // Every fast delivery was made before the slow receiver had answered even once.
    expect(slow.requests.length).toBeGreaterThan(0);
    expect(Math.max(...fastRequests.map((request) => request.at))).toBeLessThan(Math.min(...slow.requests.map((request) => request.at)) + SLOW_MS);
  });
});
