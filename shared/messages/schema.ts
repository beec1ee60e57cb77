import * as v from 'valibot';
import { cursorQuery, dateRangeQuery, emailAddress, fieldRule, isCalendarDate } from '#shared/platform/schema/common.ts';
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

/**
 * What a message held when it was handed to SES (GET /api/emails/:id/content):
 * its addresses as the headers carried them, the headers Postlane set
 * (List-Unsubscribe, List-Id…), both parts, and each attachment's name, type
 * and size (never its bytes).
 */
export const emailContentSchema = v.strictObject({
  subject: v.string(),
  from: v.string(),
  to: v.array(v.string()),
  cc: v.array(v.string()),
  bcc: v.array(v.string()),
  replyTo: v.array(v.string()),
  headers: v.array(v.strictObject({ name: v.string(), value: v.string() })),
  text: v.string(),
  html: v.string(),
  attachments: v.array(v.strictObject({ filename: v.string(), contentType: v.string(), size: count })),
});

export const listEmailsQuery = v.object({
  status: v.optional(v.picklist(EMAIL_STATUSES, `must be one of ${EMAIL_STATUSES.join(', ')}`)),
  to: v.optional(emailAddress),
  broadcastId: v.optional(v.pipe(v.string(), v.regex(/^bro_[0-9A-Za-z]{20}$/, 'must be a broadcast id (bro_…)'))),
  ...dateRangeQuery,
  ...cursorQuery(LOG_PAGE.defaultLimit, LOG_PAGE.maxLimit),
});
export type ListEmailsQuery = v.InferOutput<typeof listEmailsQuery>;

// Statistics (GET /api/stats).

/** The longest range one request reads: three months of days. */
export const MAX_STATS_DAYS = 90;

/** A UTC day, `2026-11-21`: counts are kept per day, so a time of day would mean nothing. */
const utcDay = v.pipe(
  v.string(),
  v.trim(),
  v.regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a UTC day such as 2026-11-21'),
  v.check(isCalendarDate, 'must be a real date'),
);

/** Days from `start` to `end`, both included (`YYYY-MM-DD`). */
export function daysBetween(start: string, end: string): number {
  return Math.round((Date.parse(`${end}T00:00:00Z`) - Date.parse(`${start}T00:00:00Z`)) / 86_400_000) + 1;
}

/** Either day alone is checked against today by the domain, which knows today. */
export const statsQuery = v.pipe(
  v.object({ startDate: v.optional(utcDay), endDate: v.optional(utcDay) }),
  fieldRule('startDate', ({ startDate, endDate }) => !startDate || !endDate || startDate <= endDate, 'must not be after endDate'),
  fieldRule(
    'startDate',
    ({ startDate, endDate }) => !startDate || !endDate || daysBetween(startDate, endDate) <= MAX_STATS_DAYS,
    `must be at most ${MAX_STATS_DAYS} days before endDate (both included)`,
  ),
);
export type StatsQuery = v.InferOutput<typeof statsQuery>;

const statsCounts = {
  sent: count,
  delivered: count,
  bounced: count,
  complained: count,
  opened: count,
  clicked: count,
  failed: count,
};

/** Percent of `sent`, one decimal. */
const rate = v.pipe(v.number(), v.minValue(0));

export const statsSchema = v.strictObject({
  days: v.array(v.strictObject({ date: v.string(), ...statsCounts })),
  totals: v.strictObject(statsCounts),
  rates: v.strictObject({ deliveryRate: rate, bounceRate: rate, complaintRate: rate, openRate: rate, clickRate: rate }),
  /** This calendar month's emails against the quota, whatever the range: what POST /api/email/send's `emailsRemaining` counts from. */
  usage: v.strictObject({ month: v.string(), sent: count, quota: count, resetsAt: v.string() }),
});
