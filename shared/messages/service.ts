import { idBoundAt, isId } from '#shared/platform/ids.ts';
import { getEmailRecord, queryEmailLog, type EmailRecord } from './store.ts';
import { notFound, ValidationError } from '#shared/platform/errors.ts';
import { decodeCursor, encodeCursor } from '#shared/platform/signing/cursors.ts';
import { listEmailEvents, type EventPage } from '#shared/events/service.ts';
import { retentionHorizon } from '#shared/platform/retention.ts';
import { orNull, pick } from '#shared/platform/views.ts';
import type * as v from 'valibot';
import { daysBetween, MAX_STATS_DAYS, type emailSchema, type ListEmailsQuery, type StatsQuery, type statsSchema } from './schema.ts';
import { dayOf, readStats, STATS_COUNTS, type StatsCounts } from './stats-store.ts';
import { emailsSentOf, getEmailsSent, quotaPeriod, quotaResetsAt, usageSortKey } from '#shared/accounts/service.ts';
import { getEmailContent, type EmailContent } from './content-store.ts';

/** An email record as GET /api/emails/:id returns it. */
export type Email = v.InferOutput<typeof emailSchema>;

function toEmail(record: EmailRecord): Email {
  return {
    id: record.emailId,
    ...pick(record, 'trackingId', 'type', 'from', 'to', 'cc', 'bcc', 'subject', 'status', 'test', 'createdAt'),
    ...orNull(record, 'replyTo', 'error', 'sesMessageId', 'firstOpenedAt', 'lastClickedAt', 'broadcastId'),
    opens: record.opens ?? 0,
    clicks: record.clicks ?? 0,
  };
}

/** A tracking id carries its email id's sequence (shared/sending/service.ts `trackingIdOf`). */
const TRACKING_ID = /^svc_\d{13}_([0-9A-Za-z]+)$/;

/**
 * By email id (`eml_…`) or by tracking id (`svc_…`, what POST /api/email/send
 * returns per recipient); anything else, or another account's, is EMAIL_NOT_FOUND.
 */
export async function getEmail(accountId: string, id: string): Promise<Email> {
  return toEmail(await findEmailRecord(accountId, id));
}

async function findEmailRecord(accountId: string, id: string): Promise<EmailRecord> {
  const sequence = TRACKING_ID.exec(id)?.[1];
  const emailId = sequence === undefined ? id : `eml_${sequence}`;
  const record = isId('eml', emailId) ? await getEmailRecord(accountId, emailId) : undefined;
  if (!record || (sequence !== undefined && record.trackingId !== id)) throw notFound.email();
  return record;
}

/**
 * What the email held when it was handed to SES (GET /api/emails/:id/content),
 * by email or tracking id: EMAIL_NOT_FOUND as for its record, and
 * EMAIL_CONTENT_NOT_FOUND for a record whose content is not kept. The record
 * is read first, so the content of an email the account does not have (or no
 * longer has) is never read.
 */
export async function getEmailContentOf(accountId: string, id: string): Promise<EmailContent> {
  const record = await findEmailRecord(accountId, id);
  const content = await getEmailContent(accountId, record.emailId);
  if (!content) throw notFound.emailContent();
  return content;
}

/**
 * Items a filtered page (`status`, `broadcastId`) reads for each email it may
 * answer: those filters are not keys, so a page reads at most this many times
 * `limit` items and may come back short, or empty, with a `nextCursor` to go on.
 */
export const FILTER_READ_FACTOR = 10;

/**
 * One page of the message log (GET /api/emails), newest first, and the
 * cursor of the next. Costs one Query of at most `limit` items (or
 * FILTER_READ_FACTOR × `limit` with a status or broadcast filter), whatever
 * the account's history.
 */
export async function listEmails(accountId: string, query: ListEmailsQuery, now: number): Promise<{ emails: Email[]; nextCursor: string | null }> {
  const { status, to, broadcastId, startDate, endDate, limit, cursor } = query;
  if (startDate && endDate && startDate > endDate) throw new ValidationError('VALIDATION_ERROR', 'startDate must not be after endDate', 'startDate');
  // The cursor is bound to the filters: a position in one list means nothing in another.
  const scope = `emails?${new URLSearchParams({ status: status ?? '', to: to ?? '', broadcastId: broadcastId ?? '', startDate: startDate?.toISOString() ?? '', endDate: endDate?.toISOString() ?? '' })}`;
  const horizon = retentionHorizon(now);
  const fromMs = Math.max(horizon, startDate?.getTime() ?? horizon);
  // A range that ends before retention begins holds nothing (and DynamoDB refuses a reversed BETWEEN).
  if (endDate && endDate.getTime() < fromMs) return { emails: [], nextCursor: null };
  const filtered = status !== undefined || broadcastId !== undefined;
  const { records, lastKey } = await queryEmailLog(accountId, {
    ...(to === undefined ? {} : { to }),
    ...(status === undefined ? {} : { status }),
    ...(broadcastId === undefined ? {} : { broadcastId }),
    fromId: idBoundAt('eml', fromMs, 'first'),
    ...(endDate ? { toId: idBoundAt('eml', endDate.getTime(), 'last') } : {}),
    limit,
    examine: filtered ? limit * FILTER_READ_FACTOR : limit,
    ...(cursor ? { startKey: await decodeCursor(accountId, scope, cursor) } : {}),
  });
  return { emails: records.map(toEmail), nextCursor: lastKey ? await encodeCursor(accountId, scope, lastKey) : null };
}

/** One email's events, oldest first (GET /api/emails/:id/events); EMAIL_NOT_FOUND unless the account has the email. */
export async function listEventsOfEmail(accountId: string, id: string, options: { limit: number; cursor?: string }, now: number): Promise<EventPage> {
  const { id: emailId } = await getEmail(accountId, id);
  return listEmailEvents(accountId, emailId, options, now);
}

export type Stats = v.InferOutput<typeof statsSchema>;

/** The default range: the last 30 days, today included. */
const DEFAULT_STATS_DAYS = 30;
const DAY_MS = 86_400_000;

const shiftDay = (day: string, days: number): string => dayOf(new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS));

/** Percent of `sent`, one decimal; 0 when nothing was sent. */
function percentOf(count: number, sent: number): number {
  return sent === 0 ? 0 : Math.round((count / sent) * 1000) / 10;
}

/**
 * GET /api/stats: the account's counts per UTC day from `startDate` to
 * `endDate` (default: the 30 days to today), every day listed, with totals
 * and rates over the range, and this month's usage of the quota. One Query,
 * whatever the range or the traffic: the counts are kept as events are
 * recorded (shared/messages/stats-store.ts), and the month's usage is in the
 * same partition.
 */
export async function getStats(accountId: string, query: StatsQuery, now: Date, monthlyQuota: number): Promise<Stats> {
  const endDay = query.endDate ?? dayOf(now);
  const startDay = query.startDate ?? shiftDay(endDay, 1 - DEFAULT_STATS_DAYS);
  // Given both, the query schema checked these; with one given, the other is today's or 30 days from it.
  if (startDay > endDay) throw new ValidationError('VALIDATION_ERROR', 'startDate must not be after endDate (today by default)', 'startDate');
  if (daysBetween(startDay, endDay) > MAX_STATS_DAYS) {
    throw new ValidationError(
      'VALIDATION_ERROR',
      `startDate must be at most ${MAX_STATS_DAYS} days before endDate (today by default), both included`,
      'startDate',
    );
  }
  const month = quotaPeriod(now);
  const monthFrom = usageSortKey(month);
  // A range that reaches this month reads its usage in the same Query (it sorts just before the month's first day); an older range reads it beside.
  const [{ days: counted, others }, sentApart] =
    endDay >= monthFrom
      ? [await readStats(accountId, startDay, endDay, monthFrom), undefined]
      : await Promise.all([readStats(accountId, startDay, endDay), getEmailsSent(accountId, month)]);
  const sentThisMonth = sentApart ?? others.map(emailsSentOf).find((sent) => sent !== undefined) ?? 0;
  const zero = (): StatsCounts => Object.fromEntries(STATS_COUNTS.map((name) => [name, 0])) as StatsCounts;
  const totals = zero();
  const days = Array.from({ length: daysBetween(startDay, endDay) }, (_, index) => {
    const date = shiftDay(startDay, index);
    const counts = counted.get(date) ?? zero();
    for (const name of STATS_COUNTS) totals[name] += counts[name];
    return { date, ...counts };
  });
  const { sent } = totals;
  return {
    days,
    totals,
    rates: {
      deliveryRate: percentOf(totals.delivered, sent),
      bounceRate: percentOf(totals.bounced, sent),
      complaintRate: percentOf(totals.complained, sent),
      openRate: percentOf(totals.opened, sent),
      clickRate: percentOf(totals.clicked, sent),
    },
    usage: { month, sent: sentThisMonth, quota: monthlyQuota, resetsAt: quotaResetsAt(now) },
  };
}

/** The ADD of a change's counts to the day's statistics, for the transaction of a change another area makes exactly once (a broadcast batch's settlement). */
export { statsCountItems, type StatsCounts } from './stats-store.ts';

/** Kept by every sender as it hands a message to SES (shared/sending/content.ts). */
export { putEmailContent, type EmailContent } from './content-store.ts';

/** What other areas build on from the store (its reads, and the parts their transactions write): through this service, never the store itself. */
export {
  changeEmail,
  type EmailChange,
  emailChanges,
  type EmailRecord,
  type EmailStatus,
  type EmailType,
  failQueuedEmail,
  findEmailBySesMessageId,
  getEmailRecord,
  getEmailRecordsById,
  putEmailRecords,
} from './store.ts';
