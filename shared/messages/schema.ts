import * as v from 'valibot';
import { cursorQuery, dateRangeQuery, emailAddress } from '#shared/platform/schema/common.ts';
import { LOG_PAGE } from '#shared/events/schema.ts';
import { count, nullableText, timestamp } from '#shared/platform/schema/replies.ts';

const EMAIL_STATUSES = ['sent', 'failed', 'queued', 'sending', 'suppressed', 'delivered', 'bounced', 'complained', 'rejected'] as const;

export const emailSchema = v.strictObject({
  id: v.string(),
  trackingId: v.string(),
  type: v.picklist(['email', 'otp', 'transactional', 'broadcast']),
  from: v.string(),
  to: v.string(),
  cc: v.array(v.string()),
  bcc: v.array(v.string()),
  replyTo: nullableText,
  subject: v.string(),
  status: v.picklist(EMAIL_STATUSES),
  error: v.nullable(v.strictObject({ code: v.string(), message: v.string() })),
  sesMessageId: nullableText,
  test: v.boolean(),
  /** The broadcast this message is one of; null for other sends. */
  broadcastId: nullableText,
  createdAt: timestamp,
  /** Open and click tracking (`tracking` on the send): SES's notifications counted, each once. */
  opens: count,
  clicks: count,
  firstOpenedAt: v.nullable(timestamp),
  lastClickedAt: v.nullable(timestamp),
});

export const listEmailsQuery = v.object({
  status: v.optional(v.picklist(EMAIL_STATUSES, `must be one of ${EMAIL_STATUSES.join(', ')}`)),
  to: v.optional(emailAddress),
  broadcastId: v.optional(v.pipe(v.string(), v.regex(/^bro_[0-9A-Za-z]{20}$/, 'must be a broadcast id (bro_…)'))),
  ...dateRangeQuery,
  ...cursorQuery(LOG_PAGE.defaultLimit, LOG_PAGE.maxLimit),
});
export type ListEmailsQuery = v.InferOutput<typeof listEmailsQuery>;
