/**
 * Webhook endpoints and their deliveries, as the API will offer them
 * (docs/webhooks.md): create (the secret is
 * answered only here), get, list, update, delete, a test event, the
 * deliveries with their attempts, and a manual retry.
 */
import {
  deleteEndpoint,
  getDelivery,
  getEndpoint,
  getSlowMarks,
  listAttempts,
  listEndpoints,
  putEndpoint,
  queryDeliveries,
  reopenDelivery,
  updateEndpoint,
  type Delivery,
  type DeliveryAttempt,
  type WebhookEndpoint,
} from './store.ts';
import type * as v from 'valibot';
import type { CounterLimits } from '#shared/platform/dynamodb/rate-windows.ts';
import { notFound, PostlaneError, ValidationError } from '#shared/platform/errors.ts';
import { isId, newId } from '#shared/platform/ids.ts';
import { configuredWebhookLanes, deliveryMessage, enqueueDelivery, type WebhookLanes } from './queue.ts';
import { deliverEvent } from './fan-out.ts';
import type { deliverySchema, webhookSchema } from './schema.ts';
import { newWebhookSecret } from './secret.ts';
import { laneOf } from './slow-marks.ts';
import { configuredUrlPolicy, resolveWebhookTarget, UnsafeUrlError, type UrlPolicy } from './url-safety.ts';
import { admitCounted } from '#shared/platform/dynamodb/counted-windows.ts';
import { decodeCursor, encodeCursor } from '#shared/platform/signing/cursors.ts';
import { isEventType } from '#shared/events/service.ts';
import { findById } from '#shared/platform/lookup.ts';
import { orNull, pick } from '#shared/platform/views.ts';

/** Endpoints per account: every event reads them all, so they stay one small query. */
export const MAX_WEBHOOKS_PER_ACCOUNT = 20;

const MAX_DESCRIPTION_LENGTH = 500;

/**
 * Test events (`POST /api/webhooks/:id/test`) per endpoint, and per account,
 * in a minute: a person checking a receiver sends a few. Each is a delivery
 * that may hold a worker for 10 s; beyond these, 429. The account's bound
 * keeps deleting and making endpoints from resetting the endpoint's.
 */
export const TEST_EVENT_LIMITS = {
  perEndpoint: { windowSeconds: 60, perWindow: 10, perDay: null },
  perAccount: { windowSeconds: 60, perWindow: 30, perDay: null },
} as const satisfies Record<string, CounterLimits>;

/** What the API answers: everything but the secret and the failure run. */
export type Webhook = v.InferOutput<typeof webhookSchema>;

export interface WebhookInput {
  url: string;
  events: string[];
  description?: string;
}

function publicView(endpoint: WebhookEndpoint): Webhook {
  return { ...pick(endpoint, 'id', 'url', 'events', 'description', 'enabled', 'createdAt', 'updatedAt'), ...orNull(endpoint, 'disabledAt') };
}

function checkEvents(events: readonly string[]): string[] {
  if (events.length === 0) throw new ValidationError('VALIDATION_ERROR', 'events must name at least one event type, or be ["*"]', 'events');
  events.forEach((type, index) => {
    if (type === '*' ? events.length > 1 : !isEventType(type)) {
      throw new ValidationError(
        'VALIDATION_ERROR',
        type === '*' ? '"*" stands alone in events' : `${type} is not an event type (see the event catalogue)`,
        `events[${index}]`,
      );
    }
  });
  return [...new Set(events)];
}

function checkDescription(description: string): string {
  if (description.length > MAX_DESCRIPTION_LENGTH)
    throw new ValidationError('VALIDATION_ERROR', `description must be at most ${MAX_DESCRIPTION_LENGTH} characters`, 'description');
  return description;
}

/**
 * Refuses a URL that could never be delivered to. A name that does not
 * resolve yet is accepted (its DNS may come later); a name that resolves to a
 * private address is not. The check that protects is the one at delivery.
 */
async function checkUrl(url: string, policy: UrlPolicy): Promise<string> {
  try {
    await resolveWebhookTarget(url, policy);
  } catch (error) {
    if (!(error instanceof UnsafeUrlError) || !/does not resolve/.test(error.message)) throw error;
  }
  return url;
}

/** A new endpoint, enabled, with its secret (the only time it is answered). */
export async function createWebhook(
  accountId: string,
  input: WebhookInput,
  now: number,
  policy: UrlPolicy = configuredUrlPolicy(),
): Promise<Webhook & { secret: string }> {
  const at = new Date(now).toISOString();
  const endpoint: WebhookEndpoint = {
    id: newId('whk', now),
    url: await checkUrl(input.url, policy),
    events: checkEvents(input.events),
    description: checkDescription(input.description ?? ''),
    enabled: true,
    secret: newWebhookSecret(),
    createdAt: at,
    updatedAt: at,
  };
  await putEndpoint(accountId, endpoint, MAX_WEBHOOKS_PER_ACCOUNT);
  return { ...publicView(endpoint), secret: endpoint.secret };
}

async function endpointOf(accountId: string, webhookId: string): Promise<WebhookEndpoint> {
  const endpoint = await findById('whk', webhookId, () => getEndpoint(accountId, webhookId), notFound.webhook);
  return endpoint;
}

export async function getWebhook(accountId: string, webhookId: string): Promise<Webhook> {
  return publicView(await endpointOf(accountId, webhookId));
}

export async function listWebhooks(accountId: string): Promise<Webhook[]> {
  return (await listEndpoints(accountId)).map(publicView);
}

export interface WebhookChanges {
  url?: string;
  events?: string[];
  description?: string;
  enabled?: boolean;
}

/**
 * Changes the given fields; enabling an endpoint again starts its failure
 * count afresh. A new URL leaves the slow marks as they are: they belong to
 * the receiver's host and the account (shared/webhooks/slow-marks.ts).
 */
export async function updateWebhook(
  accountId: string,
  webhookId: string,
  changes: WebhookChanges,
  now: number,
  policy: UrlPolicy = configuredUrlPolicy(),
): Promise<Webhook> {
  if (!isId('whk', webhookId)) throw notFound.webhook();
  const updated = await updateEndpoint(
    accountId,
    webhookId,
    {
      ...(changes.url === undefined ? {} : { url: await checkUrl(changes.url, policy) }),
      ...(changes.events === undefined ? {} : { events: checkEvents(changes.events) }),
      ...(changes.description === undefined ? {} : { description: checkDescription(changes.description) }),
      ...(changes.enabled === undefined ? {} : { enabled: changes.enabled }),
      updatedAt: new Date(now).toISOString(),
    },
    changes.enabled ? ['failingSince', 'disabledAt'] : [],
  );
  return publicView(updated);
}

export async function deleteWebhook(accountId: string, webhookId: string): Promise<void> {
  if (!isId('whk', webhookId)) throw notFound.webhook();
  await deleteEndpoint(accountId, webhookId);
}

function queueOrFail(lanes: WebhookLanes | undefined): WebhookLanes {
  if (!lanes) throw new Error('WEBHOOK_QUEUE_URL is not set: deliveries cannot be queued');
  return lanes;
}

/**
 * Sends a `webhook.test` event to this endpoint only (also when disabled, so
 * a receiver can be checked before enabling it: then one attempt, no retry),
 * within TEST_EVENT_LIMITS. The event is not in the account's event log:
 * nothing happened but the test.
 */
export async function sendTestEvent(accountId: string, webhookId: string, now: number, lanes = configuredWebhookLanes()): Promise<DeliveryView> {
  const [endpoint, marks] = await Promise.all([endpointOf(accountId, webhookId), getSlowMarks(accountId)]);
  await admitCounted(
    [
      [{ accountId, parts: ['WHKTEST', webhookId] }, TEST_EVENT_LIMITS.perEndpoint, 'Too many test events to this endpoint'],
      [{ accountId, parts: ['WHKTEST'] }, TEST_EVENT_LIMITS.perAccount, "Too many test events to this account's endpoints"],
    ],
    new Date(now),
  );
  const event = {
    id: newId('evt', now),
    type: 'webhook.test',
    createdAt: new Date(now).toISOString(),
    data: { webhookId, message: 'A test event from Postlane' },
  };
  return deliveryView(await deliverEvent(accountId, endpoint, event, queueOrFail(lanes), laneOf(marks, endpoint.url, now), now));
}

export type DeliveryView = v.InferOutput<typeof deliverySchema>;

/** Named fields, not the item minus some: a stored delivery also carries the worker's bookkeeping (updatedAt, lease). */
function deliveryView(delivery: Delivery): DeliveryView {
  return {
    ...pick(delivery, 'id', 'webhookId', 'eventId', 'eventType', 'status', 'attempts', 'createdAt'),
    ...orNull(delivery, 'lastStatusCode', 'lastError', 'nextAttemptAt'),
  };
}

/** One page of an endpoint's deliveries, newest first, with the cursor of the next (null at the end). */
export async function listDeliveries(
  accountId: string,
  webhookId: string,
  options: { limit: number; cursor?: string },
  now: number,
): Promise<{ deliveries: DeliveryView[]; nextCursor: string | null }> {
  await endpointOf(accountId, webhookId);
  const scope = `webhooks/${webhookId}/deliveries`;
  const { deliveries, lastKey } = await queryDeliveries(accountId, webhookId, {
    limit: options.limit,
    ...(options.cursor ? { startKey: await decodeCursor(accountId, scope, options.cursor) } : {}),
    nowSeconds: Math.floor(now / 1000),
  });
  return { deliveries: deliveries.map(deliveryView), nextCursor: lastKey ? await encodeCursor(accountId, scope, lastKey) : null };
}

async function deliveryOf(accountId: string, webhookId: string, deliveryId: string, now: number): Promise<Delivery> {
  const delivery = isId('whk', webhookId) && isId('dlv', deliveryId) ? await getDelivery(accountId, webhookId, deliveryId) : undefined;
  if (!delivery || delivery.expiresAt <= Math.floor(now / 1000)) throw notFound.delivery();
  return delivery;
}

/** A delivery with every attempt made, first first. */
export async function getDeliveryWithAttempts(
  accountId: string,
  webhookId: string,
  deliveryId: string,
  now: number,
): Promise<DeliveryView & { attemptLog: DeliveryAttempt[] }> {
  const delivery = await deliveryOf(accountId, webhookId, deliveryId, now);
  return { ...deliveryView(delivery), attemptLog: await listAttempts(accountId, deliveryId) };
}

/**
 * Delivers again now, whatever the delivery's state: a failed one gets one
 * more attempt, a pending one is attempted now instead of at its next time.
 * The endpoint must be enabled (a disabled one's deliveries end unattempted).
 */
export async function retryDelivery(
  accountId: string,
  webhookId: string,
  deliveryId: string,
  now: number,
  lanes = configuredWebhookLanes(),
): Promise<DeliveryView> {
  await deliveryOf(accountId, webhookId, deliveryId, now);
  const [endpoint, marks] = await Promise.all([endpointOf(accountId, webhookId), getSlowMarks(accountId)]);
  if (!endpoint.enabled) throw new PostlaneError('CONFLICT', 'The webhook is disabled: enable it before retrying its deliveries');
  const reopened = await reopenDelivery(accountId, webhookId, deliveryId, now);
  const lane = laneOf(marks, endpoint.url, now);
  await enqueueDelivery(queueOrFail(lanes), deliveryMessage(accountId, webhookId, deliveryId, reopened.attempts + 1, now, lane), now);
  return deliveryView(reopened);
}
