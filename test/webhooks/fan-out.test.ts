/**
 * The fan-out off the request path (shared/webhooks/stream.ts): recording an
 * event is one write and queues nothing; the table's stream (DynamoDB Local's,
 * read as the event source reads it) hands each new event item, and only
 * those, to functions/events/fan-out.ts; failed records are handed again
 * without a second delivery; only the account's home region fans out; and
 * the EventBridge option puts every event on the bus, ten a call, putting
 * refused entries again.
 */
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { recordEvent, listEvents } from '#shared/events/service.ts';
import { eventPut } from '#shared/events/store.ts';
import { db, isConditionFailure, tableName } from '#shared/platform/dynamodb/client.ts';
import { contactKey } from '#shared/contacts/store.ts';
import { createWebhook } from '#shared/webhooks/service.ts';
import { deliverWebhook } from '#shared/webhooks/deliver.ts';
import { fanOutStreamedItems } from '#shared/webhooks/stream.ts';
import { configuredWebhookLanes, decodeDeliveryMessage } from '#shared/webhooks/queue.ts';
import { deliveryIdFor } from '#shared/webhooks/fan-out.ts';
import { EVENT_SOURCE, PUT_EVENTS_ATTEMPTS } from '#shared/webhooks/event-bus.ts';
import { retentionExpiry } from '#shared/platform/retention.ts';
import { idAt } from '#shared/platform/ids.ts';
import { invokeWithRecords } from '#dev/local/stream-poller.ts';
import { recordingEventBus } from '#dev/local/event-bus.ts';
import { handler } from '#functions/events/fan-out.ts';
import { meterDynamoDb } from '../../bench/dynamo-meter.ts';
import { sqs } from '#shared/sending/retry-queue.ts';
import { createTestAccount } from '../support/accounts.ts';
import { fanOutEvents, itemsOf, openEventStream, receiversPerTest, takeMessages, takeStreamRecords } from './support.ts';

await openEventStream();
const meter = meterDynamoDb();

const receiver = receiversPerTest();

let sequence = 0;
function change(type: 'email.bounced' | 'contact.created' = 'email.bounced') {
  sequence += 1;
  return { type, data: { emailId: `eml_${sequence}` }, sourceKey: `fan-out-test:${sequence}:${Math.random()}` };
}

describe('recording an event', () => {
  it('is one write, whatever the endpoints: nothing is queued until the stream hands it to the fan-out', async () => {
    const { accountId } = await createTestAccount();
    const url = (await receiver()).url;
    for (let index = 0; index < 3; index++) await createWebhook(accountId, { url, events: ['*'] }, Date.now());
    meter.reset();
    await recordEvent(accountId, change(), Date.now());
    expect(meter.usage().roundTrips).toBe(1);
    // Straight off the queue, before the stream is read: nothing of this account's there.
    const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: process.env.WEBHOOK_QUEUE_URL, MaxNumberOfMessages: 10 }));
    expect(Messages.filter((message) => decodeDeliveryMessage(message.Body!).accountId === accountId)).toEqual([]);
    expect(await takeMessages(accountId)).toHaveLength(3);
  });

  it("is put by a producer in its own transaction with eventPut: fanned out once, and a repeat cancels the producer's transaction", async () => {
    const { accountId } = await createTestAccount();
    const target = await receiver();
    const webhook = await createWebhook(accountId, { url: target.url, events: ['contact.created'] }, Date.now());
    const now = Date.now();
    const event = { id: idAt('evt', now), type: 'contact.created', createdAt: new Date(now).toISOString(), data: { contactId: 'con_tx' } };
    const marker = (n: number) => ({ Put: { TableName: tableName, Item: { pk: `${accountId}#TEST`, sk: `change-${n}`, entity: 'test' } } });
    await db.send(new TransactWriteCommand({ TransactItems: [marker(1), ...eventPut(accountId, 'contact:con_tx:v1', event, retentionExpiry(now))] }));
    const repeat = db.send(
      new TransactWriteCommand({
        TransactItems: [marker(2), ...eventPut(accountId, 'contact:con_tx:v1', { ...event, id: idAt('evt', now + 1) }, retentionExpiry(now))],
      }),
    );
    const error = await repeat.then(
      () => undefined,
      (caught: unknown) => caught as Error,
    );
    expect(error?.name).toBe('TransactionCanceledException');
    expect(isConditionFailure(error) || /ConditionalCheckFailed/.test(String(error?.message))).toBe(true);
    const messages = await takeMessages(accountId);
    expect(messages).toEqual([expect.objectContaining({ webhookId: webhook.id, attempt: 1 })]);
    await deliverWebhook(messages[0]!, Date.now());
    expect(new Webhook(webhook.secret).verify(target.requests[0]!.body, target.requests[0]!.headers as Record<string, string>)).toEqual(event);
    expect((await listEvents(accountId, { limit: 10 }, Date.now())).events).toEqual([event]);
  });
});

describe('the stream', () => {
  it('hands the fan-out new event items only: not endpoints, deliveries or any other item', async () => {
    const { accountId } = await createTestAccount();
    await createWebhook(accountId, { url: (await receiver()).url, events: ['*'] }, Date.now());
    const { event } = await recordEvent(accountId, change(), Date.now());
    const records = await takeStreamRecords(accountId);
    expect(records.map((record) => record.eventName)).toEqual(['INSERT']);
    expect(itemsOf(records)[0]!.item).toMatchObject({ id: event.id, type: event.type });
    // The deliveries the fan-out writes are not handed back to it.
    expect(await invokeWithRecords('events/fan-out', handler, records)).toEqual([]);
    expect(await takeStreamRecords(accountId)).toEqual([]);
    expect(await takeMessages(accountId)).toHaveLength(1);
  });

  it('hands a failed record again, from it on, and the second hand adds no delivery: each receiver gets each event once', async () => {
    const { accountId } = await createTestAccount();
    const target = await receiver();
    const webhook = await createWebhook(accountId, { url: target.url, events: ['*'] }, Date.now());
    const events: Awaited<ReturnType<typeof recordEvent>>['event'][] = [];
    for (let index = 0; index < 3; index++) events.push((await recordEvent(accountId, change(), Date.now() + index)).event);
    const items = itemsOf(await takeStreamRecords(accountId));
    const lanes = configuredWebhookLanes()!;
    // The queue refuses the second event's message once.
    const doomed = deliveryIdFor(events[1]!.id, webhook.id);
    let refused = false;
    const flaky = {
      enqueue: async (body: string, delay: number) => {
        if (!refused && decodeDeliveryMessage(body).deliveryId === doomed) {
          refused = true;
          throw Object.assign(new Error('queue unavailable'), { name: 'ServiceUnavailable' });
        }
        return lanes.normal.enqueue(body, delay);
      },
    };
    const failed = await fanOutStreamedItems(items, Date.now(), { lanes: { ...lanes, normal: flaky } });
    expect(failed).toEqual([items[1]!.id]);
    // What Lambda hands again: from the failed record on.
    expect(await fanOutStreamedItems(items.slice(1), Date.now(), { lanes })).toEqual([]);
    const messages = await takeMessages(accountId);
    for (const message of messages) await deliverWebhook(message, Date.now());
    expect(target.requests.map((request) => request.headers['webhook-id']).sort()).toEqual(events.map((event) => event.id).sort());
  });

  it('queues again, when the stream hands an event again, a delivery whose message was lost before its first attempt', async () => {
    const { accountId } = await createTestAccount();
    const target = await receiver();
    await createWebhook(accountId, { url: target.url, events: ['*'] }, Date.now());
    await recordEvent(accountId, change(), Date.now());
    const records = await takeStreamRecords(accountId);
    await invokeWithRecords('events/fan-out', handler, records);
    await takeMessages(accountId); // lost: taken and never handled
    await invokeWithRecords('events/fan-out', handler, records);
    const [again] = await takeMessages(accountId);
    expect(await deliverWebhook(again!, Date.now())).toMatchObject({ action: 'done', outcome: 'succeeded' });
    // Once attempted, handing the event again queues nothing.
    await invokeWithRecords('events/fan-out', handler, records);
    expect(await takeMessages(accountId)).toEqual([]);
    expect(target.requests).toHaveLength(1);
  });

  it('skips an item that is not an event, and an event of an account with no endpoint costs one query', async () => {
    const { accountId } = await createTestAccount();
    await recordEvent(accountId, change(), Date.now());
    const items = itemsOf(await takeStreamRecords(accountId));
    meter.reset();
    expect(await fanOutStreamedItems([...items, { id: 'x', item: { ...contactKey(accountId, 'con_1'), entity: 'contact' } }], Date.now())).toEqual([]);
    expect(meter.usage().roundTrips).toBe(1);
    expect(await fanOutEvents(accountId)).toEqual([]);
  });
});

describe('the EventBridge option', () => {
  it('puts every event on the bus, ten a call: source postlane, detail-type the type, detail the event', async () => {
    const { accountId } = await createTestAccount();
    const events: Awaited<ReturnType<typeof recordEvent>>['event'][] = [];
    for (let index = 0; index < 23; index++)
      events.push((await recordEvent(accountId, change(index % 2 ? 'contact.created' : 'email.bounced'), Date.now() + index)).event);
    const bus = recordingEventBus();
    const items = itemsOf(await takeStreamRecords(accountId));
    expect(await fanOutStreamedItems(items, Date.now(), { lanes: configuredWebhookLanes(), eventBus: { bus, busName: 'customer-bus' } })).toEqual([]);
    expect(bus.calls.map((call) => call.length)).toEqual([10, 10, 3]);
    expect(bus.accepted.map((entry) => JSON.parse(entry.Detail!).id).sort()).toEqual(events.map((event) => event.id).sort());
    const first = bus.accepted.find((entry) => JSON.parse(entry.Detail!).id === events[1]!.id)!;
    expect(first).toMatchObject({ EventBusName: 'customer-bus', Source: EVENT_SOURCE, DetailType: 'contact.created' });
    expect(JSON.parse(first.Detail!)).toEqual(events[1]);
  });

  it('puts refused entries again, and reports as failed only the records whose entries stayed refused', async () => {
    const { accountId } = await createTestAccount();
    const [a, b, c] = [
      (await recordEvent(accountId, change(), Date.now())).event,
      (await recordEvent(accountId, change(), Date.now() + 1)).event,
      (await recordEvent(accountId, change(), Date.now() + 2)).event,
    ];
    const items = itemsOf(await takeStreamRecords(accountId));
    const idOf = (entry: { Detail?: string }) => JSON.parse(entry.Detail!).id as string;
    // a: refused once, then accepted; b: refused every time; c: accepted.
    const bus = recordingEventBus({ refuse: (entry, call) => (idOf(entry) === a!.id && call === 1) || idOf(entry) === b!.id });
    const failed = await fanOutStreamedItems(items, Date.now(), { lanes: configuredWebhookLanes(), eventBus: { bus, busName: 'default' } });
    expect(failed).toEqual([items.find(({ item }) => item.id === b!.id)!.id]);
    expect(bus.calls).toHaveLength(PUT_EVENTS_ATTEMPTS);
    expect(bus.calls[1]!.map(idOf).sort()).toEqual([a!.id, b!.id].sort());
    expect(bus.accepted.map(idOf).sort()).toEqual([a!.id, c!.id].sort());
  });

  it('reports the whole batch failed when PutEvents throws, and succeeds when handed again', async () => {
    const { accountId } = await createTestAccount();
    await recordEvent(accountId, change(), Date.now());
    await recordEvent(accountId, change(), Date.now() + 1);
    const items = itemsOf(await takeStreamRecords(accountId));
    const bus = recordingEventBus({ fail: (call) => call === 1 });
    const options = { lanes: configuredWebhookLanes(), eventBus: { bus, busName: 'default' } };
    expect(await fanOutStreamedItems(items, Date.now(), options)).toEqual(items.map((item) => item.id));
    expect(await fanOutStreamedItems(items, Date.now(), options)).toEqual([]);
    expect(bus.accepted).toHaveLength(2);
  });
});
