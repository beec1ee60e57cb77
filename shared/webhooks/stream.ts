/**
 * The fan-out off the request path: the table's stream hands every new event
 * item to functions/events/fan-out.ts (locally dev/local/stream-poller.ts),
 * which queues its deliveries (fan-out.ts) and, with the EventBridge option,
 * puts it on the customer's bus. A request that records an event only writes
 * it; a slow or dead receiver, or an account with many endpoints, costs the
 * request nothing.
 *
 * Global tables: every replica's stream carries every event, whichever
 * region wrote it. An account's items are written in its home region
 * (docs/regions.md), so only the home region's stream fans an event out; the
 * others skip it. During `account move` both regions may take it for theirs
 * for a moment: the deliveries' ids are derived from event and endpoint, so
 * the second fan-out adds no delivery and a duplicate queue message finds its
 * attempt claimed.
 */
import { homeRegionOf } from '#shared/platform/dynamodb/client.ts';
import { storedEventOf, type StoredEvent } from '#shared/events/service.ts';
import { localRegion, routesToHome } from '#shared/platform/dynamodb/regions.ts';
import type { StreamedItem } from '#shared/platform/handlers/stream-worker.ts';
import { log } from '#shared/platform/log.ts';
import { configuredEventBus, publishEvents, type EventBus } from './event-bus.ts';
import { fanOutEvent } from './fan-out.ts';
import { configuredWebhookLanes, type WebhookLanes } from './queue.ts';

export interface StreamFanOutOptions {
  lanes?: WebhookLanes | undefined;
  eventBus?: { bus: EventBus; busName: string } | undefined;
}

/** Whether this region's stream is the one to fan the account's events out. */
async function fansOutHere(accountId: string): Promise<boolean> {
  return !routesToHome() || (await homeRegionOf(accountId)) === localRegion();
}

/**
 * Fans out a batch of stream records; answers the ids of those that failed,
 * to be received again (with the stream's ReportBatchItemFailures, from the
 * first of them on: fanning an event out twice queues nothing twice).
 */
export async function fanOutStreamedItems(
  records: readonly StreamedItem[],
  now: number,
  options: StreamFanOutOptions = { lanes: configuredWebhookLanes(), eventBus: configuredEventBus() },
): Promise<string[]> {
  const failed = new Set<string>();
  const published: { id: string; event: StoredEvent }[] = [];
  await Promise.all(
    records.map(async ({ id, item }) => {
      const stored = storedEventOf(item);
      // The event source's filter lets only event items through; anything else is not ours to fan out.
      if (!stored) return;
      try {
        if (!(await fansOutHere(stored.accountId))) return;
        await fanOutEvent(stored.accountId, stored.event, now, options.lanes);
        published.push({ id, event: stored.event });
      } catch (error) {
        log.error('event fan-out: record failed, to be received again', { eventId: stored.event.id, error });
        failed.add(id);
      }
    }),
  );
  if (options.eventBus && published.length > 0) {
    try {
      const refused = await publishEvents(
        options.eventBus,
        published.map(({ event }) => event),
      );
      for (const { id, event } of published) if (refused.has(event.id)) failed.add(id);
    } catch (error) {
      log.error('event fan-out: PutEvents failed, the batch to be received again', { error });
      for (const { id } of published) failed.add(id);
    }
  }
  return records.filter((record) => failed.has(record.id)).map((record) => record.id);
}
