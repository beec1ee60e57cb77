/**
 * Issue 18 on a global table: every replica's stream carries every event,
 * whichever region wrote it, and each region runs the fan-out over its own.
 * Only the account's home region (where its items are written) queues the
 * deliveries; the other region's fan-out skips the replicated record.
 */
import { afterAll, describe, expect, it, vi } from 'vitest';
import { EU, US, inRegion, startRegions, TABLES } from './two-regions.ts';
import { createAccount } from '#shared/accounts/service.ts';
import { recordEvent } from '#shared/events/service.ts';
import { createWebhook } from '#shared/webhooks/service.ts';
import { inRegionScope } from '#shared/platform/dynamodb/regions.ts';
import { invokeWithRecords, StreamReader } from '#dev/local/stream-poller.ts';
import { handler } from '#functions/events/fan-out.ts';
import { config } from '#shared/platform/config.ts';
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
