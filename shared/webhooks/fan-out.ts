/**
 * From an event to deliveries: one per enabled endpoint subscribed to its
 * type, each put once (its id is derived from the event and the endpoint)
 * and queued. Running it again for the same event (a replayed notification)
 * queues again only deliveries never attempted, which is how a crash between
 * the delivery's write and its message is repaired; a duplicate message is
 * harmless, because each attempt is claimed in the table before it is made.
 */
import { createHash } from 'node:crypto';
import { listEndpointsAndSlowMarks, putDeliveryOnce, type Delivery, type WebhookEndpoint } from './store.ts';
import type { StoredEvent } from '#shared/events/service.ts';
import { retentionExpiry } from '#shared/platform/retention.ts';
import { configuredWebhookLanes, deliveryMessage, enqueueDelivery, type WebhookLane, type WebhookLanes } from './queue.ts';
import { laneOf } from './slow-marks.ts';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * `dlv_` + the event's time part + 12 base62 characters of a hash of event
 * and endpoint: sorts by the event's time like every id, and is the same
 * each time the event is fanned out.
 */
export function deliveryIdFor(eventId: string, webhookId: string): string {
  const digest = createHash('sha256').update(`${eventId}\u0000${webhookId}`).digest();
  const suffix = [...digest.subarray(0, 12)].map((byte) => BASE62[byte % 62]).join('');
  return `dlv_${eventId.slice('evt_'.length, 'evt_'.length + 8)}${suffix}`;
}

export function subscribes(endpoint: WebhookEndpoint, event: StoredEvent): boolean {
  return (
    endpoint.enabled &&
    (endpoint.events.includes('*') || endpoint.events.includes(event.type)) &&
    // An endpoint made after the event does not receive its replays.
    endpoint.createdAt <= event.createdAt
  );
}

/** Puts the delivery of `event` to `endpoint` once, and queues its first attempt on `lane` unless one was made. */
export async function deliverEvent(
  accountId: string,
  endpoint: WebhookEndpoint,
  event: StoredEvent,
  lanes: WebhookLanes,
  lane: WebhookLane,
  now: number,
): Promise<Delivery> {
  const webhookId = endpoint.id;
  const createdAt = Date.parse(event.createdAt);
  const { delivery } = await putDeliveryOnce(accountId, {
    id: deliveryIdFor(event.id, webhookId),
    webhookId,
    eventId: event.id,
    eventType: event.type,
    payload: JSON.stringify({ id: event.id, type: event.type, createdAt: event.createdAt, data: event.data }),
    status: 'pending',
    attempts: 0,
    nextAttemptAt: event.createdAt,
    createdAt: event.createdAt,
    expiresAt: retentionExpiry(createdAt),
  });
  if (delivery.status === 'pending' && delivery.attempts === 0) {
    await enqueueDelivery(lanes, deliveryMessage(accountId, webhookId, delivery.id, 1, now, lane), now);
  }
  return delivery;
}

/**
 * Delivers the event to every endpoint of the account subscribed to it, each
 * on its receiver's lane (the account's slow marks come with the endpoints'
 * Query: choosing the lanes costs no table call).
 */
export async function fanOutEvent(
  accountId: string,
  event: StoredEvent,
  now: number,
  lanes: WebhookLanes | undefined = configuredWebhookLanes(),
): Promise<Delivery[]> {
  const { endpoints, slowMarks } = await listEndpointsAndSlowMarks(accountId);
  const subscribed = endpoints.filter((endpoint) => subscribes(endpoint, event));
  if (subscribed.length === 0) return [];
  if (!lanes) throw new Error('WEBHOOK_QUEUE_URL is not set: events cannot reach webhook endpoints');
  return Promise.all(subscribed.map((endpoint) => deliverEvent(accountId, endpoint, event, lanes, laneOf(slowMarks, endpoint.url, now), now)));
}
