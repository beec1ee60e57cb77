import { isId } from '#shared/ids.ts';
import { getEmailRecord, type EmailRecord } from '#shared/data/emails.ts';
import { notFound } from '#shared/errors.ts';
import { orNull, pick } from './views.ts';
import type * as v from 'valibot';
import type { emailSchema } from '#shared/schemas/emails.ts';

/** An email record as GET /api/emails/:id returns it. */
export type Email = v.InferOutput<typeof emailSchema>;

function toEmail(record: EmailRecord): Email {
  return {
    id: record.emailId,
    ...pick(record, 'trackingId', 'type', 'from', 'to', 'cc', 'bcc', 'subject', 'status', 'test', 'createdAt'),
    ...orNull(record, 'replyTo', 'error', 'sesMessageId', 'broadcastId'),
  };
}

/** A tracking id carries its email id's sequence (shared/domain/sending.ts `trackingIdOf`). */
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
