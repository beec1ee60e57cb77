/**
 * Issue 18 on a global table: every replica's stream carries every event,
 * whichever region wrote it, and each region runs the fan-out over its own.
 * Only the account's home region (where its items are written) queues the
 * deliveries; the other region's fan-out skips the replicated record. The
 * delivery worker, in whichever region it runs, learns the account's home
 * once per batch and writes there.
 */
import { afterAll, describe, expect, it, vi } from 'vitest';
import { EU, US, inRegion, startRegions, TABLES } from './two-regions.ts';
import { createAccount } from '#shared/accounts/service.ts';
import { recordEvent } from '#shared/events/service.ts';
import { createWebhook } from '#shared/webhooks/service.ts';
import { inRegionScope } from '#shared/platform/dynamodb/regions.ts';
import { invokeWithRecords, StreamReader } from '#dev/local/stream-poller.ts';
import { invokedAs } from '#dev/local/invocation.ts';
import { sqsEvent } from '#dev/local/queue-poller.ts';
import { handler } from '#functions/events/fan-out.ts';
import { handler as deliver } from '#functions/webhooks/deliver.ts';
import { accountKey } from '#shared/platform/dynamodb/account-item.ts';
import { config } from '#shared/platform/config.ts';
import { dynamo } from '#shared/platform/dynamodb/client.ts';
import { encodeDeliveryMessage } from '#shared/webhooks/queue.ts';
import { createWebhookQueue, takeMessages } from '../webhooks/support.ts';

// vi.hoisted runs before the imports above, some of which read the config as they load.
await vi.hoisted(async () => {
  (await import('./environment.ts')).twoRegionEnvironment('home', 'event-fan-out');
  process.env.WEBHOOK_QUEUE_URL = `${process.env.SQS_ENDPOINT}/000000000000/webhooks-${crypto.randomUUID()}`;
});

await createWebhookQueue();
const replication = (await startRegions({ replicated: true }))!;
const streams = Object.fromEntries(
  await Promise.all(
    Object.entries(TABLES()).map(async ([region, table]) => [region, await StreamReader.open(config.DYNAMODB_ENDPOINT!, table, region)] as const),
  ),
);
afterAll(async () => {
  for (const reader of Object.values(streams)) reader.close();
  await replication.stop();
});

/** The reads of the account's item in this region's replica (how a function learns the account's home) while `work` runs. */
async function homeLookups(accountId: string, work: () => Promise<unknown>): Promise<number> {
  const { pk } = accountKey(accountId);
  let lookups = 0;
  dynamo.middlewareStack.add(
    (next, context) => async (args) => {
      // Ahead of the document client's marshalling: the key as the data layer wrote it.
      if (context.commandName === 'GetItemCommand' && (args.input as { Key?: { pk?: unknown } }).Key?.pk === pk) lookups++;
      return next(args);
    },
    { step: 'initialize', name: 'homeLookups' },
  );
  try {
    await work();
  } finally {
    dynamo.middlewareStack.remove('homeLookups');
  }
  return lookups;
}

/** Each region's fan-out over its own replica's new records of the account. */
async function fanOutInEachRegion(accountId: string) {
  const handed: Record<string, number> = {};
  for (const region of [US, EU]) {
    const records = (await streams[region]!.read()).filter((record) => record.dynamodb?.Keys?.pk?.S?.startsWith(`${accountId}#`));
    handed[region] = records.length;
    expect(await inRegionScope(() => invokeWithRecords('events/fan-out', handler, records), region)).toEqual([]);
  }
  return handed;
}

describe('event fan-out on a global table', () => {
  it("queues an event's deliveries once, from its home region's stream, though both streams carry it", async () => {
    const { accountId } = await createAccount({ plan: 'business', region: EU });
    await replication.settled();
    const webhook = await inRegion(US, () => createWebhook(accountId, { url: 'http://127.0.0.1:9/hooks', events: ['*'] }, Date.now()));
    // Recorded from a request that arrived in the US: written in the EU, the account's home.
    await inRegion(US, () => recordEvent(accountId, { type: 'contact.created', data: { contactId: 'con_r' }, sourceKey: 'contact:con_r:v1' }, Date.now()));
    await replication.settled();
    expect(await fanOutInEachRegion(accountId)).toEqual({ [US]: 1, [EU]: 1 });
    const messages = await takeMessages(accountId);
    expect(messages).toEqual([expect.objectContaining({ webhookId: webhook.id, attempt: 1 })]);
  });

  it('does the same the other way round: an account homed in the US is fanned out by the US stream alone', async () => {
    const { accountId } = await createAccount({ plan: 'business', region: US });
    await replication.settled();
    await inRegion(EU, () => createWebhook(accountId, { url: 'http://127.0.0.1:9/hooks', events: ['*'] }, Date.now()));
    await inRegion(EU, () => recordEvent(accountId, { type: 'contact.created', data: { contactId: 'con_a' }, sourceKey: 'contact:con_a:v1' }, Date.now()));
    await replication.settled();
    expect(await fanOutInEachRegion(accountId)).toEqual({ [US]: 1, [EU]: 1 });
    expect(await takeMessages(accountId)).toHaveLength(1);
  });
});

describe('the webhook delivery worker on a global table', () => {
  it("learns the account's home once per batch, however many writes its attempt makes there", async () => {
    const { accountId } = await createAccount({ plan: 'business', region: EU });
    await replication.settled();
    await inRegion(EU, () => createWebhook(accountId, { url: 'http://127.0.0.1:9/hooks', events: ['*'] }, Date.now()));
    await inRegion(EU, () => recordEvent(accountId, { type: 'contact.created', data: { contactId: 'con_w' }, sourceKey: 'contact:con_w:v1' }, Date.now()));
    await replication.settled();
    await fanOutInEachRegion(accountId);
    const [message] = await takeMessages(accountId);
    // Received in the US (this process's own region): every write and claim of the attempt goes to the EU.
    const batch = sqsEvent(
      [{ MessageId: 'm0', ReceiptHandle: 'r0', Body: encodeDeliveryMessage(message!) }],
      'arn:aws:sqs:us-east-1:000000000000:webhooks',
      US,
    );

    const lookups = await homeLookups(accountId, async () => expect((await invokedAs('webhooks/deliver', deliver)(batch)).batchItemFailures).toEqual([]));

    // Without the invocation's region scope, each of the attempt's guarded writes asked again (6 lookups).
    expect(lookups).toBe(1);
  });
});
