/**
 * The EventBridge option (docs/webhooks.md, "EventBridge"): every event also
 * put on a bus of the customer's, source `postlane`, detail-type the event's
 * type, so their own rules route it. PutEvents takes ten entries a call and
 * may refuse some of them (throttling, an internal failure) while accepting
 * the rest; only the refused ones are put again.
 */
import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry, type PutEventsResultEntry } from '@aws-sdk/client-eventbridge';
import { awsConnection, config } from '#shared/platform/config.ts';
import type { StoredEvent } from '#shared/events/service.ts';

export const EVENT_SOURCE = 'postlane';
/** PutEvents' limit of entries per call. */
export const PUT_EVENTS_BATCH = 10;
/** Calls per entry before it counts as failed (and its stream record is received again). */
export const PUT_EVENTS_ATTEMPTS = 3;

/** What the fan-out needs of EventBridge: the seam tests put a fault-injecting stand-in into (dev/local/event-bus.ts). */
export interface EventBus {
  putEvents(entries: PutEventsRequestEntry[]): Promise<{ Entries?: PutEventsResultEntry[] }>;
}

/** The deployment's bus (EVENT_BUS_NAME), or none when the option is off. */
export function configuredEventBus(): { bus: EventBus; busName: string } | undefined {
  if (!config.EVENT_BUS_NAME) return undefined;
  const client = new EventBridgeClient({ ...awsConnection(undefined), maxAttempts: 3 });
  return { bus: { putEvents: (Entries) => client.send(new PutEventsCommand({ Entries })) }, busName: config.EVENT_BUS_NAME };
}

function entryOf(event: StoredEvent, busName: string): PutEventsRequestEntry {
  return {
    EventBusName: busName,
    Source: EVENT_SOURCE,
    DetailType: event.type,
    Detail: JSON.stringify(event),
    Time: new Date(event.createdAt),
  };
}

/**
 * Puts the events on the bus, ten a call, putting again the entries PutEvents
 * refused; answers the ids of the events still refused after
 * PUT_EVENTS_ATTEMPTS calls. A call that throws fails its whole batch.
 */
export async function publishEvents(target: { bus: EventBus; busName: string }, events: readonly StoredEvent[]): Promise<Set<string>> {
  const failed = new Set<string>();
  for (let start = 0; start < events.length; start += PUT_EVENTS_BATCH) {
    let pending = events.slice(start, start + PUT_EVENTS_BATCH);
    for (let attempt = 1; pending.length > 0 && attempt <= PUT_EVENTS_ATTEMPTS; attempt++) {
      const { Entries = [] } = await target.bus.putEvents(pending.map((event) => entryOf(event, target.busName)));
      // Entries answer the request's in order; one with an ErrorCode (or missing) was not put.
      pending = pending.filter((_event, index) => !Entries[index]?.EventId || Entries[index]?.ErrorCode !== undefined);
    }
    for (const event of pending) failed.add(event.id);
  }
  return failed;
}
