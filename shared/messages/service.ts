import { idBoundAt, isId } from '#shared/platform/ids.ts';
import { getEmailRecord, queryEmailLog, type EmailRecord } from './store.ts';
import { notFound, ValidationError } from '#shared/platform/errors.ts';
import { decodeCursor, encodeCursor } from '#shared/platform/signing/cursors.ts';
import { listEmailEvents, type EventPage } from '#shared/events/service.ts';
import { retentionHorizon } from '#shared/platform/retention.ts';
import { orNull, pick } from '#shared/platform/views.ts';
import type * as v from 'valibot';
import type { emailSchema, ListEmailsQuery } from './schema.ts';

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
  const sequence = TRACKING_ID.exec(id)?.[1];
  const emailId = sequence === undefined ? id : `eml_${sequence}`;
  const record = isId('eml', emailId) ? await getEmailRecord(accountId, emailId) : undefined;
  if (!record || (sequence !== undefined && record.trackingId !== id)) throw notFound.email();
  return toEmail(record);
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
