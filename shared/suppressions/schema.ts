/**
 * The suppression list over the API (docs/suppressions.md): its request and
 * reply schemas. The API names reasons by what happened (`bounce`,
 * `complaint`, `unsubscribe`, `manual`); the store keeps the words the send
 * path compares with contact statuses (`bounced`, `complained`, `unsubscribed`).
 */
import * as v from 'valibot';
import { cursorQuery, emailAddress, MAX_EMAIL_LENGTH, strictObject } from '#shared/platform/schema/common.ts';
import { count, dataReply, timestamp } from '#shared/platform/schema/replies.ts';

export const SUPPRESSION_REASONS = ['bounce', 'complaint', 'unsubscribe', 'manual'] as const;
export type ApiSuppressionReason = (typeof SUPPRESSION_REASONS)[number];

/** `contact`: the address's own contact, whose status (bounced, complained) stops sends; not a list entry. */
export const SOURCE_TYPES = ['email', 'recipient', 'member', 'key', 'operator', 'contact'] as const;

/** At most this many addresses in one POST /api/suppressions. */
export const MAX_SUPPRESSIONS_PER_REQUEST = 1000;

export const listSuppressionsQuery = v.object({
  search: v.optional(v.pipe(v.string(), v.trim(), v.toLowerCase(), v.maxLength(MAX_EMAIL_LENGTH, `must be at most ${MAX_EMAIL_LENGTH} characters`))),
  reason: v.optional(v.picklist(SUPPRESSION_REASONS, `must be one of ${SUPPRESSION_REASONS.join(', ')}`)),
  ...cursorQuery(50, 100),
});
export type ListSuppressionsQuery = v.InferOutput<typeof listSuppressionsQuery>;

/** Each address is checked on its own (`suppressionAddress`), so one bad line does not refuse the others. */
export const addSuppressionsBody = strictObject({
  emails: v.pipe(
    v.array(v.unknown()),
    v.minLength(1, 'must have at least one address'),
    v.maxLength(MAX_SUPPRESSIONS_PER_REQUEST, `must have at most ${MAX_SUPPRESSIONS_PER_REQUEST} addresses per request`),
  ),
  reason: v.optional(v.picklist(['manual'], 'must be manual: other reasons are recorded by the service'), 'manual'),
});
export type AddSuppressionsInput = v.InferOutput<typeof addSuppressionsBody>;

/** One address of `emails`, as the dashboard checks each line before sending. */
export const suppressionAddress = emailAddress;

export const removeSuppressionQuery = v.object({
  confirm: v.optional(v.picklist(['complaint'], 'must be complaint, to lift a complaint')),
});

// Replies.

export const suppressionSchema = v.strictObject({
  email: v.string(),
  reason: v.picklist(SUPPRESSION_REASONS),
  createdAt: timestamp,
  /** Null for addresses listed before sources were recorded. A `contact` source names its audience. */
  source: v.nullable(v.strictObject({ type: v.picklist(SOURCE_TYPES), id: v.nullable(v.string()), audienceId: v.optional(v.string()) })),
});
export type SuppressionView = v.InferOutput<typeof suppressionSchema>;

export const addSuppressionsResult = v.strictObject({
  added: count,
  already: count,
  failed: count,
  /** `email` is the entry as given when it is a string, else null. */
  errors: v.array(v.strictObject({ index: count, email: v.nullable(v.string()), error: v.string(), message: v.string(), field: v.string() })),
});
export type AddSuppressionsResult = v.InferOutput<typeof addSuppressionsResult>;

export const addSuppressionsReply = dataReply(addSuppressionsResult);
