/**
 * The table's stream as the webhook fan-out reads it: new images, and of
 * them only new event items. One definition for the stack's event source
 * filter (lib/event-fan-out.ts) and the local poller (dev/local/stream-poller.ts),
 * so what a deployed and a local fan-out see cannot differ.
 */

/** The sort key of every event item (shared/events/store.ts), and of no other entity. */
export const EVENT_SORT_KEY = 'EVENT';

/** Stream records per fan-out invocation (the event source's BatchSize): each queues a message per endpoint, in parallel. */
export const FAN_OUT_BATCH_SIZE = 50;

/** A Lambda filter pattern: at each leaf, the values a record's field may have. */
export interface FilterPattern {
  readonly [field: string]: FilterPattern | readonly string[];
}

/** Inserts of event items: an event is written once and never updated. */
export const EVENT_STREAM_FILTER: FilterPattern = {
  eventName: ['INSERT'],
  dynamodb: { Keys: { sk: { S: [EVENT_SORT_KEY] } } },
};

/** Whether a stream record passes the filter, as Lambda's event filtering judges equality patterns. */
export function matchesFilter(pattern: FilterPattern, record: unknown): boolean {
  return Object.entries(pattern).every(([field, expected]) => {
    const value = (record as Record<string, unknown> | undefined)?.[field];
    return Array.isArray(expected) ? expected.includes(value as string) : matchesFilter(expected as FilterPattern, value);
  });
}
