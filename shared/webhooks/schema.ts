import * as v from 'valibot';
import { EVENT_TYPES } from '#shared/events/types.ts';
import { cursorQuery, strictObject } from '#shared/platform/schema/common.ts';
import { count, nullableText, timestamp } from '#shared/platform/schema/replies.ts';

/** A URL of any length would be stored and signed with every delivery; browsers and proxies stop near 2,000. */
const MAX_URL_LENGTH = 2048;

const url = v.pipe(v.string(), v.trim(), v.maxLength(MAX_URL_LENGTH, `must be at most ${MAX_URL_LENGTH} characters`), v.url('must be an absolute URL'));
/** Event types, or `["*"]` for all (the domain checks that `*` stands alone). */
const events = v.pipe(
  v.array(v.picklist([...EVENT_TYPES, '*'], 'must be an event type of the catalogue, or *')),
  v.minLength(1, 'must name at least one event type, or be ["*"]'),
  v.maxLength(EVENT_TYPES.length, `must name at most ${EVENT_TYPES.length} event types`),
);
const description = v.pipe(v.string(), v.maxLength(500, 'must be at most 500 characters'));

export const createWebhookBody = strictObject({ url, events, description: v.optional(description) });

export const updateWebhookBody = strictObject({
  url: v.optional(url),
  events: v.optional(events),
  description: v.optional(description),
  enabled: v.optional(v.boolean()),
});

export const listDeliveriesQuery = v.object({ ...cursorQuery(20, 100) });

export const webhookSchema = v.strictObject({
  id: v.string(),
  url: v.string(),
  events: v.array(v.string()),
  description: v.string(),
  enabled: v.boolean(),
  /** Set when the service disabled the endpoint after sustained failure; null once enabled again. */
  disabledAt: v.nullable(timestamp),
  createdAt: timestamp,
  updatedAt: timestamp,
});

/** Create's answer: the only time the signing secret is shown. */
/** A new endpoint, with the secret only this answer shows. */
export const createdWebhookSchema = v.strictObject({ ...webhookSchema.entries, secret: v.pipe(v.string(), v.startsWith('whsec_')) });

export const webhookListReply = v.strictObject({ success: v.literal(true), webhooks: v.array(webhookSchema) });

export const deliverySchema = v.strictObject({
  id: v.string(),
  webhookId: v.string(),
  eventId: v.string(),
  eventType: v.string(),
  status: v.picklist(['pending', 'succeeded', 'failed']),
  attempts: count,
  lastStatusCode: v.nullable(v.pipe(v.number(), v.integer())),
  lastError: nullableText,
  nextAttemptAt: v.nullable(timestamp),
  createdAt: timestamp,
});
