/**
 * The slow lane (shared/webhooks/queue.ts, slow-marks.ts, docs/webhooks.md "A
 * slow endpoint"): a delivery unanswered SLOW_DELIVERY_MS after the first
 * answer of its batch marks its receiver's host slow (attempts all late alike
 * are the worker's own lag, not the receivers'); its deliveries then go to the
 * slow queue, whatever queues them (the stream's fan-out, a retry, a test
 * event, a manual retry), while the other hosts' stay on the normal queue;
 * messages queued before the mark move over unattempted; the mark lapses after
 * SLOW_MARK_MS and nothing the tenant does ends it sooner (a new URL on the
 * same host, a new endpoint there); ACCOUNT_SLOW_HOSTS slow hosts put the
 * whole account on the slow lane. And the point of it all: with one worker on
 * the normal queue, a fast endpoint's deliveries are all made while the slow
 * receiver still holds its own.
 *
 * Real receivers on 127.0.0.1, this file's two queues on the local SQS
 * stand-in, the table's stream read as the fan-out's event source reads it.
 */
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { startWebhookWorker } from '#dev/local/webhook-worker.ts';
import { storedEventOf } from '#shared/events/store.ts';
import { batchPace, deliverWebhook } from '#shared/webhooks/deliver.ts';
import type { DeliveryMessage } from '#shared/webhooks/queue.ts';
import { fanOutStreamedItems } from '#shared/webhooks/stream.ts';
import { ACCOUNT_SLOW_HOSTS, SLOW_ALONE_MS, SLOW_DELIVERY_MS, SLOW_MARK_MS } from '#shared/webhooks/schedule.ts';
import { deliveryBatch } from '#shared/webhooks/worker.ts';
import { request } from '../support/api.ts';
import { createTestAccount } from '../support/accounts.ts';
import { eventually } from '../support/eventually.ts';
import { fanOutEvents, itemsOf, openEventStream, receiversOfFile, takeLaneMessages, takeMessages, takeStreamRecords, type Responder } from './support.ts';

await openEventStream();

/**
 * Most of this file is waiting on slow receivers, so its tests run at once
 * (describe.concurrent): each has an account and receivers of its own, and
 * takes only its account's messages and stream records. The two that must
 * have the process to themselves (one stalls it, one runs a worker that
 * takes every account's messages) run after, alone.
 */
const receiver = receiversOfFile();

/** Answers 200 once `ms` have passed: past the threshold when `ms` > SLOW_DELIVERY_MS. */
const answerAfter = (ms: number) => (response: ServerResponse) => void setTimeout(() => response.writeHead(200).end(), ms);
/** Past the threshold by enough that a fast neighbour answering late on a loaded machine still leaves it slow; short enough to keep the tests quick. */
const SLOW_MS = SLOW_DELIVERY_MS + 1_000;

/**
 * An account with an audience and an endpoint taking `contact.created` at
 * each URL: their ids, `createContacts` (a `contact.created` event each) and
 * `queued`, the account's queued messages with their lanes.
 */
async function tenant(urls: readonly string[]) {
  const account = await createTestAccount();
  const ids: string[] = [];
  for (const url of urls) ids.push(await addEndpoint(account.key, url));
  const audienceId = (await request('POST', '/api/audiences', { key: account.key, body: { name: 'News' } })).body.data.id as string;
  let contacts = 0;
  const createContacts = async (count = 1) => {
    for (let index = 0; index < count; index++) {
      contacts += 1;
      const created = await request('POST', '/api/contacts', { key: account.key, body: { email: `c${contacts}@example.org`, audienceId } });
      expect(created.status).toBe(201);
    }
  };
  /** Read until all `expected` are there: the table's stream shows an event a moment after its write, later on a busy machine. */
  const queued = async (expected: number) => {
    const found: Awaited<ReturnType<typeof takeLaneMessages>> = [];
    await eventually(
      async () => found.push(...(await takeLaneMessages(account.accountId))),
      (count) => count >= expected,
    );
    return found;
  };
  return { ...account, ids, createContacts, queued };
}

/** A new endpoint of the key's account taking `contact.created` at `url`: its id. */
async function addEndpoint(key: string, url: string): Promise<string> {
  const created = await request('POST', '/api/webhooks', { key, body: { url, events: ['contact.created'] } });
  expect(created.status).toBe(201);
  return created.body.data.id as string;
}

/** The lanes of the queued messages of one endpoint, in order. */
const lanesOf = (queued: Awaited<ReturnType<typeof takeLaneMessages>>, webhookId: string) =>
  queued.filter(({ message }) => message.webhookId === webhookId).map(({ lane }) => lane);

/** An account with an audience, a slow receiver's endpoint and a fast one's, both taking `contact.created`. */
async function twoEndpoints(slowAnswer: Responder = () => answerAfter(SLOW_MS)) {
  const slow = await receiver(slowAnswer);
  const fast = await receiver();
  const arranged = await tenant([slow.url, fast.url]);
  const [slowId, fastId] = arranged.ids as [string, string];
  /** The lane each of the account's `expected` queued messages is on, by endpoint: `{ slow: ['slow'], fast: ['normal'] }`. */
  const lanesByEndpoint = async (expected: number) => {
    const queued = await arranged.queued(expected);
    return { slow: lanesOf(queued, slowId), fast: lanesOf(queued, fastId), messages: queued.map(({ message }) => message), queued };
  };
  return { ...arranged, slow, fast, slowId, fastId, lanesByEndpoint };
}

type Arranged = Awaited<ReturnType<typeof twoEndpoints>>;

/** The account's new stream items, read until one is an event (a contact's write streams before its event's on a busy machine). */
async function eventItems(accountId: string): Promise<ReturnType<typeof itemsOf>> {
  const items: ReturnType<typeof itemsOf> = [];
  await eventually(
    async () => items.push(...itemsOf(await takeStreamRecords(accountId))),
    () => items.some(({ item }) => storedEventOf(item) !== undefined),
  );
  return items;
}

/** The messages handed to the worker as one batch, as the queue's event source hands them; none to be received again (none throws). */
async function deliverBatch(messages: readonly DeliveryMessage[], now = Date.now()): Promise<void> {
  const deliver = deliveryBatch(now);
  await Promise.all(messages.map((message) => deliver(message)));
}

/** Arrange: one event delivered to both endpoints in one batch, the slow one's attempt marking it. */
async function markedSlow(arranged: Arranged): Promise<void> {
  await arranged.createContacts();
  const { slow, fast, messages } = await arranged.lanesByEndpoint(2);
  expect({ slow, fast }).toEqual({ slow: ['normal'], fast: ['normal'] });
  await deliverBatch(messages);
  expect([arranged.slow.requests.length, arranged.fast.requests.length]).toEqual([1, 1]);
}

describe.concurrent('the slow lane', () => {
  it("marks an endpoint whose delivery took longer than the threshold: its next deliveries go to the slow queue, the other endpoint's stay on the normal one", async () => {
    const arranged = await twoEndpoints();
    await markedSlow(arranged);

    await arranged.createContacts(2);

    const { slow, fast } = await arranged.lanesByEndpoint(4);
    expect(slow).toEqual(['slow', 'slow']);
    expect(fast).toEqual(['normal', 'normal']);
  });

  it('sends a test event and a manual retry of a slow endpoint on the slow queue too', async () => {
    const arranged = await twoEndpoints();
    await markedSlow(arranged);

    const test = await request('POST', `/api/webhooks/${arranged.slowId}/test`, { key: arranged.key });
    expect(test.status).toBe(200);
    const [delivered] = (await request('GET', `/api/webhooks/${arranged.slowId}/deliveries`, { key: arranged.key })).body.deliveries.filter(
      (delivery: { eventType: string }) => delivery.eventType === 'contact.created',
    );
    const retried = await request('POST', `/api/webhooks/${arranged.slowId}/deliveries/${delivered.id}/retry`, { key: arranged.key });
    expect(retried.status).toBe(200);

    const { slow, fast } = await arranged.lanesByEndpoint(2);
    expect(slow).toEqual(['slow', 'slow']);
    expect(fast).toEqual([]);
  });

  it('queues the retry of a failed slow attempt on the slow queue', async () => {
    const arranged = await twoEndpoints(() => (response) => void setTimeout(() => response.writeHead(503).end(), SLOW_MS));
    await arranged.createContacts();
    const { messages } = await arranged.lanesByEndpoint(2);

    // The worker's core, one batch: what it would queue next, without waiting the retry's 5 s on the queue.
    const batch = batchPace();
    const steps = await Promise.all(messages.map((message) => deliverWebhook(message, Date.now(), { batch })));

    const toSlow = steps[messages.findIndex((message) => message.webhookId === arranged.slowId)];
    // enqueueDelivery puts a message on its lane's queue.
    expect(toSlow).toMatchObject({ action: 'enqueue', message: { lane: 'slow', attempt: 2 } });
  });

  it('moves a message queued on the normal lane before the mark to the slow lane, unattempted', async () => {
    const arranged = await twoEndpoints();
    await arranged.createContacts(2);
    const queued = (await arranged.lanesByEndpoint(4)).messages;
    const toSlow = queued.filter((message) => message.webhookId === arranged.slowId);
    expect(toSlow).toHaveLength(2);
    // The first slow delivery marks the endpoint (beside a fast one); the second was queued on the normal lane before that.
    await deliverBatch([toSlow[0]!, queued.find((message) => message.webhookId === arranged.fastId)!]);

    await deliverBatch([toSlow[1]!]);

    expect(arranged.slow.requests).toHaveLength(1);
    const moved = await takeLaneMessages(arranged.accountId);
    expect(moved.map(({ lane, message }) => [lane, message.deliveryId, message.attempt])).toEqual([['slow', toSlow[1]!.deliveryId, 1]]);
    // On the slow lane it is delivered.
    expect(await deliverWebhook(moved[0]!.message, Date.now())).toMatchObject({ action: 'done', outcome: 'succeeded' });
    expect(arranged.slow.requests).toHaveLength(2);
  });

  it('lets the mark lapse after SLOW_MARK_MS: deliveries return to the normal lane, and a slow one marks the endpoint again', async () => {
    const arranged = await twoEndpoints();
    await markedSlow(arranged);
    const lapsed = Date.now() + SLOW_MARK_MS + 1_000;

    await arranged.createContacts();
    // The stream's fan-out, as it would run once the mark has lapsed.
    expect(await fanOutStreamedItems(await eventItems(arranged.accountId), lapsed)).toEqual([]);
    const afterLapse = await takeLaneMessages(arranged.accountId);
    expect(afterLapse.map(({ lane }) => lane)).toEqual(['normal', 'normal']);

    // Still slow: that attempt marks it again, from its own time on.
    await deliverBatch(
      afterLapse.map(({ message }) => message),
      lapsed,
    );
    await arranged.createContacts();
    expect(await fanOutStreamedItems(await eventItems(arranged.accountId), lapsed + 1)).toEqual([]);
    const { slow, fast } = await arranged.lanesByEndpoint(2);
    expect({ slow, fast }).toEqual({ slow: ['slow'], fast: ['normal'] });
  });

  it('leaves another host to the normal lane: another receiver, not yet seen slow', async () => {
    const arranged = await twoEndpoints();
    await markedSlow(arranged);
    const moved = await receiver();

    const updated = await request('PATCH', `/api/webhooks/${arranged.slowId}`, { key: arranged.key, body: { url: moved.url } });
    expect(updated.status).toBe(200);
    await arranged.createContacts();

    const { slow, fast } = await arranged.lanesByEndpoint(2);
    expect({ slow, fast }).toEqual({ slow: ['normal'], fast: ['normal'] });
  });

  it("marks no endpoint when every attempt of a batch is late alike: that is the worker's own lag, not a receiver's", async () => {
    const account = await createTestAccount();
    const late = [await receiver(() => answerAfter(SLOW_MS)), await receiver(() => answerAfter(SLOW_MS))];
    for (const target of late) await request('POST', '/api/webhooks', { key: account.key, body: { url: target.url, events: ['contact.created'] } });
    const audienceId = (await request('POST', '/api/audiences', { key: account.key, body: { name: 'News' } })).body.data.id;
    await request('POST', '/api/contacts', { key: account.key, body: { email: 'a@example.org', audienceId } });

    const first = await takeMessages(account.accountId);
    expect(first).toHaveLength(2);
    await deliverBatch(first);
    expect(late.map((target) => target.requests.length)).toEqual([1, 1]);
    await request('POST', '/api/contacts', { key: account.key, body: { email: 'b@example.org', audienceId } });

    expect((await takeLaneMessages(account.accountId)).map(({ lane }) => lane)).toEqual(['normal', 'normal']);
  });

  it('marks a receiver alone in its batch once it has taken SLOW_ALONE_MS', async () => {
    const account = await createTestAccount();
    const hanging = await receiver(() => answerAfter(SLOW_ALONE_MS + 300));
    const webhookId = (await request('POST', '/api/webhooks', { key: account.key, body: { url: hanging.url, events: ['*'] } })).body.data.id;
    await request('POST', `/api/webhooks/${webhookId}/test`, { key: account.key });

    await deliverBatch(await takeMessages(account.accountId));
    await request('POST', `/api/webhooks/${webhookId}/test`, { key: account.key });

    expect((await takeLaneMessages(account.accountId)).map(({ lane }) => lane)).toEqual(['slow']);
  });
});

describe.concurrent('a tenant who tries to leave the slow lane', () => {
  it("keeps a receiver slow whatever its endpoint's URL becomes on the same host, for test events too, and for a new endpoint there", async () => {
    const arranged = await twoEndpoints();
    await markedSlow(arranged);

    for (const version of [1, 2]) {
      const updated = await request('PATCH', `/api/webhooks/${arranged.slowId}`, { key: arranged.key, body: { url: `${arranged.slow.url}?v=${version}` } });
      expect(updated.status).toBe(200);
    }
    const again = await addEndpoint(arranged.key, `${arranged.slow.url}/again`);
    await arranged.createContacts();
    expect((await request('POST', `/api/webhooks/${arranged.slowId}/test`, { key: arranged.key })).status).toBe(200);

    const { slow, fast, queued } = await arranged.lanesByEndpoint(4);
    expect({ slow, fast, again: lanesOf(queued, again) }).toEqual({ slow: ['slow', 'slow'], fast: ['normal'], again: ['slow'] });
  });

  it(`sends all of an account's deliveries to the slow lane once ${ACCOUNT_SLOW_HOSTS} of its hosts are slow, a new host's included; another account's stay on the normal lane`, async () => {
    const slowReceivers = await Promise.all(Array.from({ length: ACCOUNT_SLOW_HOSTS }, () => receiver(() => answerAfter(SLOW_MS))));
    const fast = await receiver();
    const arranged = await tenant([...slowReceivers.map(({ url }) => url), fast.url]);
    const neighbour = await tenant([(await receiver()).url]);
    await arranged.createContacts();
    // One batch: the fast receiver's answer times the others, each marked slow.
    await deliverBatch((await arranged.queued(ACCOUNT_SLOW_HOSTS + 1)).map(({ message }) => message));
    expect(fast.requests).toHaveLength(1);

    const fresh = await addEndpoint(arranged.key, (await receiver()).url);
    await arranged.createContacts();
    await neighbour.createContacts();

    const queued = await arranged.queued(ACCOUNT_SLOW_HOSTS + 2);
    expect(queued.map(({ lane }) => lane)).toEqual(Array(ACCOUNT_SLOW_HOSTS + 2).fill('slow'));
    expect(lanesOf(queued, fresh)).toEqual(['slow']);
    expect((await neighbour.queued(1)).map(({ lane }) => lane)).toEqual(['normal']);
  });
});

describe('the slow lane, with the process to itself', () => {
  it("marks no receiver whose answer came in while the worker was paused: the worker's lag again", async () => {
    // The receiver answers, then this process stalls past the threshold before the worker reads the answer:
    // in the event loop's check phase, so that timers run before the answer's I/O is read.
    const answerThenStall = (response: ServerResponse) =>
      void setTimeout(
        () =>
          setImmediate(() => {
            response.writeHead(200).end();
            const until = Date.now() + SLOW_DELIVERY_MS + 500;
            while (Date.now() < until);
          }),
        100,
      );
    const arranged = await tenant([(await receiver()).url, (await receiver(() => answerThenStall)).url]);
    await arranged.createContacts();
    await deliverBatch((await arranged.queued(2)).map(({ message }) => message));

    await arranged.createContacts();

    expect((await arranged.queued(2)).map(({ lane }) => lane)).toEqual(['normal', 'normal']);
  });

  it("with one worker on the normal queue, delivers every fast endpoint's event while the slow receiver still holds its own", async () => {
    const held: ServerResponse[] = [];
    let released = false;
    // The first answer is slow and marks the endpoint; the later ones wait until the test lets them go.
    const arranged = await twoEndpoints((_request, index) =>
      index === 0 ? answerAfter(SLOW_MS) : (response) => void (released ? response.writeHead(200).end() : held.push(response)),
    );
    await markedSlow(arranged);
    const EVENTS = 8;
    const worker = await startWebhookWorker({ concurrency: 1, slowConcurrency: 1 });
    try {
      await arranged.createContacts(EVENTS);
      expect(await fanOutEvents(arranged.accountId)).toEqual([]);

      // Without the lanes the one normal worker's batch would hold slow deliveries until their 10 s timeout.
      const fastRequests = await eventually(
        async () => arranged.fast.requests.length,
        (count) => count === 1 + EVENTS,
        8_000,
      );
      expect(fastRequests).toBe(1 + EVENTS);
      expect(held.length).toBeGreaterThan(0);
      expect(arranged.slow.requests).toHaveLength(1 + held.length);
    } finally {
      released = true;
      for (const response of held) response.writeHead(200).end();
      await eventually(
        async () => arranged.slow.requests.length,
        (count) => count === 1 + EVENTS,
      );
      await worker.stop();
    }
    expect(arranged.slow.requests).toHaveLength(1 + EVENTS);
  });
});
