/**
 * Broadcasts (docs/broadcasts.md): one
 * message to each subscribed contact of an audience's segment, sent by the
 * engine (shared/broadcasts/engine.ts) at SES's pace.
 */
import * as v from 'valibot';
import { emailAddress, freeMap, optionalText, paginationQuery, requiredText, strictObject, templateVariables } from '#shared/platform/schema/common.ts';
import { count, nullableText, timestamp } from '#shared/platform/schema/replies.ts';
import { content, contentUnlessTemplate, mailbox, notBothContentAndTemplate, subject, tracking } from '#shared/sending/schema.ts';

export const BROADCAST_STATUSES = ['draft', 'scheduled', 'sending', 'paused', 'sent', 'cancelled'] as const;
export type BroadcastStatus = (typeof BROADCAST_STATUSES)[number];

export const BROADCAST_LIMITS = {
  name: 256,
  tags: 50,
  tag: 100,
  customFields: 50,
  customFieldValue: 1_000,
  /** `scheduledAt` at most this far ahead: EventBridge Scheduler would take more, but a month keeps a forgotten schedule from firing a year later. */
  scheduleDays: 30,
  testRecipients: 5,
} as const;

const tagList = v.pipe(
  v.array(v.pipe(v.string(), v.trim(), v.nonEmpty(), v.maxLength(BROADCAST_LIMITS.tag))),
  v.maxLength(BROADCAST_LIMITS.tags, `must have at most ${BROADCAST_LIMITS.tags} tags`),
);

/**
 * A number DynamoDB can hold (magnitudes from 1e-130 to below 1e126): the
 * segment is stored with the broadcast and compared in a query, and DynamoDB
 * refuses any other outright.
 */
const storableNumber = v.pipe(
  v.number(),
  v.finite(),
  v.check((value) => value === 0 || (Math.abs(value) >= 1e-130 && Math.abs(value) < 1e126), 'must be 0 or between 1e-130 and 1e126 in magnitude'),
);

export const segmentSchema = strictObject({
  tags: v.optional(tagList),
  anyTags: v.optional(tagList),
  customFields: v.optional(
    v.pipe(
      freeMap(
        v.pipe(v.string(), v.nonEmpty(), v.maxLength(100)),
        v.union([v.pipe(v.string(), v.maxLength(BROADCAST_LIMITS.customFieldValue)), storableNumber, v.boolean()], 'must be a string, number or boolean'),
      ),
      v.check((fields) => Object.keys(fields).length <= BROADCAST_LIMITS.customFields, `must have at most ${BROADCAST_LIMITS.customFields} fields`),
    ),
  ),
});
export type Segment = v.InferOutput<typeof segmentSchema>;

const scheduledAt = v.pipe(v.string(), v.isoTimestamp('must be an ISO 8601 date-time such as 2026-12-01T09:00:00Z'));
const audienceId = requiredText(64);
const templateId = requiredText(64);

const createFields = strictObject({
  audienceId,
  from: mailbox,
  subject,
  content: v.optional(content),
  templateId: v.optional(templateId),
  name: optionalText(BROADCAST_LIMITS.name),
  variables: v.optional(templateVariables, {}),
  replyTo: v.optional(mailbox),
  segment: v.optional(segmentSchema),
  scheduledAt: v.optional(scheduledAt),
  tracking,
});

/** POST /api/broadcasts. */
export const createBroadcastBody = v.pipe(
  createFields,
  v.description("Give `content` or a `templateId`, not both. `subject` replaces the template's subject and may hold variables."),
  notBothContentAndTemplate<v.InferOutput<typeof createFields>>(),
  contentUnlessTemplate<v.InferOutput<typeof createFields>>(),
);
export type CreateBroadcastInput = v.InferOutput<typeof createBroadcastBody>;

const updateFields = strictObject({
  audienceId: v.optional(audienceId),
  from: v.optional(mailbox),
  subject: v.optional(subject),
  content: v.optional(content),
  templateId: v.optional(templateId),
  name: v.optional(requiredText(BROADCAST_LIMITS.name)),
  variables: v.optional(templateVariables),
  replyTo: v.optional(v.nullable(mailbox)),
  segment: v.optional(v.nullable(segmentSchema)),
  scheduledAt: v.optional(v.nullable(scheduledAt)),
  tracking,
});

/** PATCH /api/broadcasts/:id: only the fields given change; `content` replaces a template and `templateId` content; null clears an optional field. */
export const updateBroadcastBody = v.pipe(
  updateFields,
  v.description(
    'Only the fields given change. `content` replaces a `templateId` and the other way round; `null` clears `replyTo`, `segment` or `scheduledAt`.',
  ),
  notBothContentAndTemplate<v.InferOutput<typeof updateFields>>(),
);
export type UpdateBroadcastInput = v.InferOutput<typeof updateBroadcastBody>;

/** POST /api/broadcasts/:id/send. */
export const sendBroadcastBody = strictObject({ scheduledAt: v.optional(scheduledAt) });

/** POST /api/broadcasts/:id/test. */
export const testBroadcastBody = strictObject({
  to: v.pipe(
    v.array(emailAddress),
    v.minLength(1, 'must have at least one address'),
    v.maxLength(BROADCAST_LIMITS.testRecipients, `must have at most ${BROADCAST_LIMITS.testRecipients} addresses`),
  ),
});

/** POST /api/audiences/:id/segment-count: the segment a broadcast would have (none: every subscribed contact). */
export const segmentCountBody = strictObject({ segment: v.optional(v.nullable(segmentSchema)) });

export const listBroadcastsQuery = v.object({
  ...paginationQuery(20, 100),
  status: v.optional(v.picklist(BROADCAST_STATUSES, `must be one of ${BROADCAST_STATUSES.join(', ')}`)),
});
export type ListBroadcastsQuery = v.InferOutput<typeof listBroadcastsQuery>;

// Replies.

export const broadcastCountsSchema = v.strictObject({ recipients: count, sent: count, suppressed: count, failed: count, remaining: count });

const segmentReply = v.strictObject({
  tags: v.optional(v.array(v.string())),
  anyTags: v.optional(v.array(v.string())),
  customFields: v.optional(v.record(v.string(), v.union([v.string(), v.number(), v.boolean()]))),
});

export const broadcastSchema = v.strictObject({
  id: v.string(),
  name: v.string(),
  audienceId: v.string(),
  segment: v.nullable(segmentReply),
  from: v.string(),
  replyTo: nullableText,
  subject: v.string(),
  templateId: nullableText,
  content: nullableText,
  variables: v.record(v.string(), v.unknown()),
  status: v.picklist(BROADCAST_STATUSES),
  pausedReason: nullableText,
  scheduledAt: v.nullable(timestamp),
  startedAt: v.nullable(timestamp),
  completedAt: v.nullable(timestamp),
  counts: broadcastCountsSchema,
  tracking: v.strictObject({ opens: v.boolean(), clicks: v.boolean() }),
  createdAt: timestamp,
  updatedAt: timestamp,
});

export const broadcastTestReply = v.strictObject({
  success: v.literal(true),
  message: v.string(),
  sent: v.array(v.strictObject({ recipient: v.string(), emailId: v.string() })),
  failed: v.array(v.strictObject({ recipient: v.string(), error: v.string(), message: v.string() })),
});

/** What POST /api/audiences/:id/segment-count answers (docs/broadcasts.md, "Counting a segment"). */
export const segmentCountSchema = v.strictObject({
  audienceId: v.string(),
  /** Subscribed contacts in the segment: exact when `exact`, else an estimate from the part examined. */
  recipients: count,
  exact: v.boolean(),
  /** The audience's subscribed contacts, from its counters. */
  subscribed: count,
});

/** `unsubscribed`: recipients who unsubscribed through the links of the broadcast's message, each once. */
export const BROADCAST_STATS = ['delivered', 'bounced', 'complained', 'opened', 'clicked', 'unsubscribed'] as const;
export type BroadcastStat = (typeof BROADCAST_STATS)[number];

/** GET /api/broadcasts/:id/stats: what its messages did, counted as their events are recorded. */
export const broadcastStatsSchema = v.strictObject({
  broadcastId: v.string(),
  recipients: count,
  sent: count,
  ...(Object.fromEntries(BROADCAST_STATS.map((name) => [name, count])) as Record<BroadcastStat, typeof count>),
});
