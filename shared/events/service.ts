/**
 * The event log: every change a customer may want to know about becomes one
 * event `{id, type, createdAt, data}`, kept for the configured retention. The
 * table's stream, not the request that records it, hands each new event to
 * the account's webhook endpoints (shared/webhooks/stream.ts), so recording
 * one costs one write however many endpoints or receivers there are.
 */
import type { TransactItems } from '#shared/platform/dynamodb/client.ts';
import { eventLists, eventPut, putEventOnce, queryEvents, type StoredEvent } from './store.ts';
import { ValidationError } from '#shared/platform/errors.ts';
import { idAt } from '#shared/platform/ids.ts';
import type { Actor, EventType } from './types.ts';
import { decodeCursor, encodeCursor } from '#shared/platform/signing/cursors.ts';
import { retentionExpiry, retentionHorizon } from '#shared/platform/retention.ts';

export { type Actor, EVENT_TYPES, type EventType, isEventType, OPERATOR } from './types.ts';

export type PostlaneEvent = StoredEvent;

export interface EventInput {
  type: EventType;
  data: Record<string, unknown>;
  /**
   * Names the underlying change, the same however often it is reported: an
   * SES message id with the notification type and recipient
   * (`ses:<messageId>:Bounce:a@example.com`), or an entity id and version
   * (`contact:con_…:v3`). A second event with the same key is not recorded.
   */
  sourceKey: string;
}

function newEvent(input: EventInput, now: number): PostlaneEvent {
  return { id: idAt('evt', now), type: input.type, createdAt: new Date(now).toISOString(), data: input.data };
}

/**
 * The transaction items that record the event once per `sourceKey`, for the
 * producer to put in the same TransactWriteItems as the change the event
 * describes: no call of its own on the request path, and a replayed change
 * cancels with its event. Delivery to webhooks follows from the table's
 * stream, off the request path.
 *
 * `await transactWrite([contactUpdate, ...eventWrite('acc_…', {type: 'contact.updated', data, sourceKey: 'contact:con_…:v4'}, now)])`
 */
export function eventWrite(accountId: string, input: EventInput, now: number): TransactItems {
  return eventPut(accountId, input.sourceKey, newEvent(input, now), retentionExpiry(now));
}

/**
 * Records the event once per `sourceKey`; a repeat (`created: false`) answers
 * the stored event and writes nothing. Its deliveries follow from the
 * stream, retried there until queued, so nothing is left to repair here.
 *
 * `await recordEvent('acc_…', {type: 'email.bounced', data: {...}, sourceKey: 'ses:0100…:Bounce:a@example.com'}, Date.now())`
 */
export async function recordEvent(accountId: string, input: EventInput, now: number): Promise<{ event: PostlaneEvent; created: boolean }> {
  return putEventOnce(accountId, input.sourceKey, newEvent(input, now), retentionExpiry(now));
}

/** The audit events: changes to the account's keys, domains and suppression list (docs/webhooks.md, "Audit events"). */
export type AuditEventType = Extract<EventType, `api_key.${string}` | `domain.${string}` | `suppression.${string}`>;

/**
 * The transaction items of an audit event, for the write of the change it
 * reports: `data` names the resource, and `actor` who changed it. The source
 * key names the change once (`api_key:key_…:revoked`) or, for changes that
 * may repeat, with the time they were made.
 *
 * `await transactWrite([keyUpdate, ...auditWrite('acc_…', 'api_key.revoked', { apiKeyId, name }, actor, 'api_key:key_…:revoked', now)])`
 */
export function auditWrite(
  accountId: string,
  type: AuditEventType,
  data: Record<string, unknown>,
  actor: Actor,
  sourceKey: string,
  now: number,
): TransactItems {
  return eventWrite(accountId, { type, sourceKey, data: { ...data, actor } }, now);
}

export interface EventPage {
  events: PostlaneEvent[];
  /** Null at the end of the list. */
  nextCursor: string | null;
}

export interface EventListOptions {
  type?: EventType;
  /** Inclusive, on `createdAt`. */
  startDate?: Date;
  endDate?: Date;
  limit: number;
  cursor?: string;
}

/**
 * One page of a list, and the cursor of the next. Reads at most `limit`
 * items, never below the retention horizon (items DynamoDB has not removed
 * yet would otherwise make empty pages at the end).
 */
async function page(
  accountId: string,
  scope: string,
  list: { index: 'gsi1' | 'gsi2' | 'gsi3'; partition: string },
  options: { startDate?: Date; endDate?: Date; limit: number; cursor?: string; newestFirst: boolean },
  now: number,
): Promise<EventPage> {
  const horizon = retentionHorizon(now);
  const fromMs = Math.max(horizon, options.startDate?.getTime() ?? horizon);
  // A range that ends before retention begins holds nothing (and DynamoDB refuses a reversed BETWEEN).
  if (options.endDate && options.endDate.getTime() < fromMs) return { events: [], nextCursor: null };
  const { events, lastKey } = await queryEvents({
    ...list,
    fromMs,
    ...(options.endDate ? { toMs: options.endDate.getTime() } : {}),
    newestFirst: options.newestFirst,
    limit: options.limit,
    ...(options.cursor ? { startKey: await decodeCursor(accountId, scope, options.cursor) } : {}),
    nowSeconds: Math.floor(now / 1000),
  });
  return { events, nextCursor: lastKey ? await encodeCursor(accountId, scope, lastKey) : null };
}

/** The account's events, newest first, optionally of one type and within dates (GET /api/events). */
export async function listEvents(accountId: string, options: EventListOptions, now: number): Promise<EventPage> {
  if (options.startDate && options.endDate && options.startDate > options.endDate) {
    throw new ValidationError('VALIDATION_ERROR', 'startDate must not be after endDate', 'startDate');
  }
  const scope = `events?${new URLSearchParams({ type: options.type ?? '', startDate: options.startDate?.toISOString() ?? '', endDate: options.endDate?.toISOString() ?? '' })}`;
  const list = options.type ? eventLists.type(accountId, options.type) : eventLists.account(accountId);
  return page(accountId, scope, list, { ...options, newestFirst: true }, now);
}

/** One email's events, oldest first (GET /api/emails/:id/events). */
export function listEmailEvents(accountId: string, emailId: string, options: { limit: number; cursor?: string }, now: number): Promise<EventPage> {
  return page(accountId, `emails/${emailId}/events`, eventLists.email(accountId, emailId), { ...options, newestFirst: false }, now);
}

/** What other areas build on from the store (its reads, and the parts their transactions write): through this service, never the store itself. */
export { putEventItemsOnce, type StoredEvent, storedEventOf } from './store.ts';
