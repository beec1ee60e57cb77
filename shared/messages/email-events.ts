/**
 * The `email.*` events (docs/webhooks.md, "Event catalogue"): what each says
 * of its message, and the source key that makes it once per change. Their
 * items go into the write of the change itself (the email records' batch, the
 * retry worker's and the feedback's transactions), never a call of their own.
 */
import type { TransactItems } from '#shared/platform/dynamodb/client.ts';
import type { EmailRecord } from './store.ts';
import { eventWrite, type EventType } from '#shared/events/service.ts';

export type EmailEventType = Extract<EventType, `email.${string}`>;

/** What every `email.*` event says of its message (docs/webhooks.md, "Events"). */
export interface EmailFacts {
  emailId: string;
  trackingId?: string;
  to: string;
  from: string;
  subject: string;
  broadcastId?: string;
  /** Sent with a test key: no SES feedback will ever follow. */
  test?: boolean;
}

/** The facts a stored record holds. */
export function emailFactsOfRecord(record: Pick<EmailRecord, 'emailId' | 'trackingId' | 'to' | 'from' | 'subject' | 'test' | 'broadcastId'>): EmailFacts {
  return {
    emailId: record.emailId,
    trackingId: record.trackingId,
    to: record.to,
    from: record.from,
    subject: record.subject,
    ...(record.broadcastId ? { broadcastId: record.broadcastId } : {}),
    ...(record.test ? { test: true } : {}),
  };
}

/**
 * Source keys. What Postlane itself decided about a record happens once per
 * record (`email:eml_…:sent`); what SES reports is named by SES's message id,
 * the notification type and the recipient, so a replayed notification is the
 * same change (`ses:0100…:Bounce:a@example.com`).
 */
export const emailSourceKey = (emailId: string, outcome: 'sent' | 'failed'): string => `email:${emailId}:${outcome}`;
export const sesSourceKey = (messageId: string, eventType: string, recipient: string): string => `ses:${messageId}:${eventType}:${recipient.toLowerCase()}`;

/** The transaction items recording one `email.*` event, its detail (`bounce`, `click`, …) beside the facts. */
export function emailEvent(
  accountId: string,
  type: EmailEventType,
  facts: EmailFacts,
  sourceKey: string,
  now: number,
  detail: Record<string, unknown> = {},
): TransactItems {
  return eventWrite(accountId, { type, sourceKey, data: { ...facts, ...detail } }, now);
}

/** `email.sent`: SES took the message (or a test key pretended to), in the request or from the retry queue. */
export function sentEvent(accountId: string, facts: EmailFacts, now: number): TransactItems {
  return emailEvent(accountId, 'email.sent', facts, emailSourceKey(facts.emailId, 'sent'), now);
}

/** `email.failed`: SES refused the message, or the retry queue gave up on it; `error` says why. */
export function failedEvent(accountId: string, facts: EmailFacts, error: { code: string; message: string }, now: number): TransactItems {
  return emailEvent(accountId, 'email.failed', facts, emailSourceKey(facts.emailId, 'failed'), now, { error });
}

/**
 * The event a freshly stored record stands for, as plain items for the
 * records' own batch write (a fresh record's event has no earlier claim to
 * meet). Queued records wait for the retry worker; suppressed ones never
 * left, and their send answered why.
 */
export function outcomeEventItems(accountId: string, record: EmailRecord, now: number): Record<string, unknown>[] {
  const facts = emailFactsOfRecord(record);
  const items =
    record.status === 'sent'
      ? sentEvent(accountId, facts, now)
      : record.status === 'failed' && record.error
        ? failedEvent(accountId, facts, record.error, now)
        : [];
  return items.flatMap((item) => (item.Put?.Item ? [item.Put.Item] : []));
}
