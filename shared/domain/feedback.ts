/**
 * SES feedback: what SES later learns about a message it accepted (event
 * publishing through the configuration set, see lib/feedback.ts). The send
 * path tags every message with its account and email id; an event without
 * them is not ours to act on.
 */
import * as v from 'valibot';
import { findContactsByEmail, recordContactActivity } from '#shared/data/contacts.ts';
import { changeEmailStatus, type EmailStatus } from '#shared/data/emails.ts';
import { putSuppression, type SuppressionReason } from '#shared/data/suppressions.ts';
import { ACCOUNT_TAG, EMAIL_TAG } from '#shared/email/message-tags.ts';
import { isId } from '#shared/ids.ts';
import { log } from '#shared/log.ts';
import { changeContactStatus } from './contacts.ts';
import { CONTACT_STATUSES, type ContactStatus } from '#shared/model/contact-status.ts';

const tagValue = v.optional(v.array(v.string()));
const recipients = v.array(v.object({ emailAddress: v.string() }));

/** The fields Postlane reads of an SES event publishing record; the rest is ignored. */
const SesEventSchema = v.object({
  eventType: v.picklist(['Bounce', 'Complaint', 'Delivery', 'Reject']),
  mail: v.object({
    messageId: v.string(),
    tags: v.object({ [ACCOUNT_TAG]: tagValue, [EMAIL_TAG]: tagValue }),
  }),
  bounce: v.optional(v.object({ bounceType: v.string(), bouncedRecipients: recipients })),
  complaint: v.optional(v.object({ complainedRecipients: recipients })),
  delivery: v.optional(v.object({ timestamp: v.optional(v.pipe(v.string(), v.isoTimestamp())), recipients: v.array(v.string()) })),
});

type SesEvent = v.InferOutput<typeof SesEventSchema>;

export type FeedbackOutcome = 'applied' | 'ignored';

/** Email record statuses each event may move from: later news never rolls a record back to `delivered`. */
const EMAIL_TRANSITIONS: Record<'Delivery' | 'Reject' | 'Bounce' | 'Complaint', { from: readonly EmailStatus[]; to: EmailStatus }> = {
  Delivery: { from: ['sent', 'queued'], to: 'delivered' },
  Reject: { from: ['sent', 'queued'], to: 'rejected' },
  // A bounce can arrive after a delivery event (the receiving server accepted, then returned the message).
  Bounce: { from: ['sent', 'queued', 'delivered'], to: 'bounced' },
  Complaint: { from: ['sent', 'queued', 'delivered', 'bounced'], to: 'complained' },
};

/** What SES feedback suppresses for; unsubscribing is the recipient's own doing (subscriptions.ts). */
export type FeedbackReason = Exclude<SuppressionReason, 'unsubscribed'>;

/** A complaint outranks a bounce: a bounce never replaces it. */
const CONTACT_FROM: Record<FeedbackReason, readonly ContactStatus[]> = {
  bounced: CONTACT_STATUSES.filter((status) => status !== 'bounced' && status !== 'complained'),
  complained: CONTACT_STATUSES.filter((status) => status !== 'complained'),
};

/**
 * Every contact of the account with this address, in every audience, moves
 * to `reason`; an address that is no contact is suppressed at account level.
 * Each change is conditional on the status it moves from, so a redelivered
 * event changes nothing and counters stay exact.
 */
async function suppressAddress(accountId: string, address: string, reason: FeedbackReason, now: Date): Promise<void> {
  const email = address.toLowerCase();
  const memberships = await findContactsByEmail(accountId, email);
  if (memberships.length === 0) {
    await putSuppression(accountId, email, reason, now);
    return;
  }
  for (const membership of memberships) {
    if (CONTACT_FROM[reason].includes(membership.status)) await changeContactStatus(accountId, membership.contactId, CONTACT_FROM[reason], reason, now);
  }
}

/**
 * What a hard bounce or a complaint does, whether its event arrived or the
 * reconciliation found it on SES's suppression list later: the addresses are
 * suppressed for the account that sent the message, and its record moves.
 * Every write is conditional, so applying it again changes nothing.
 */
export async function applyBounceOrComplaint(
  owner: { accountId: string; emailId: string },
  reason: FeedbackReason,
  addresses: readonly string[],
  now: Date,
): Promise<void> {
  for (const address of addresses) await suppressAddress(owner.accountId, address, reason, now);
  const transition = EMAIL_TRANSITIONS[reason === 'bounced' ? 'Bounce' : 'Complaint'];
  await changeEmailStatus(owner.accountId, owner.emailId, transition.from, transition.to);
}

/** Mail reached these addresses: every contact of the account with one of them was last active then. */
async function recordDelivery(accountId: string, addresses: readonly string[], at: string): Promise<void> {
  for (const address of addresses) {
    for (const membership of await findContactsByEmail(accountId, address.toLowerCase())) {
      await recordContactActivity(accountId, membership.contactId, at);
    }
  }
}

function tagged(event: SesEvent): { accountId: string; emailId: string } | undefined {
  const accountId = event.mail.tags[ACCOUNT_TAG]?.[0];
  const emailId = event.mail.tags[EMAIL_TAG]?.[0];
  return accountId && emailId && isId('acc', accountId) && isId('eml', emailId) ? { accountId, emailId } : undefined;
}

/** The effect one event has: the addresses to suppress and how, and the record's next status (none for a transient bounce). */
function effectOf(
  event: SesEvent,
): { suppress?: { reason: FeedbackReason; addresses: string[] }; email?: (typeof EMAIL_TRANSITIONS)[keyof typeof EMAIL_TRANSITIONS] } | undefined {
  switch (event.eventType) {
    case 'Delivery':
    case 'Reject':
      return { email: EMAIL_TRANSITIONS[event.eventType] };
    case 'Bounce':
      if (!event.bounce) return undefined;
      // Transient (mailbox full, auto-reply) and Undetermined bounces say nothing final about the address.
      if (event.bounce.bounceType !== 'Permanent') return {};
      return { suppress: { reason: 'bounced', addresses: event.bounce.bouncedRecipients.map((r) => r.emailAddress) }, email: EMAIL_TRANSITIONS.Bounce };
    case 'Complaint':
      if (!event.complaint) return undefined;
      return {
        suppress: { reason: 'complained', addresses: event.complaint.complainedRecipients.map((r) => r.emailAddress) },
        email: EMAIL_TRANSITIONS.Complaint,
      };
  }
}

/**
 * Applies one SES event publishing record (what EventBridge carries as
 * `detail`). Malformed, unknown or untagged events are logged and dropped
 * (retrying them would never succeed); DynamoDB errors propagate so the
 * invocation fails and is retried.
 */
export async function applySesEvent(record: unknown, now: Date): Promise<FeedbackOutcome> {
  const parsed = v.safeParse(SesEventSchema, record);
  const event = parsed.success ? parsed.output : undefined;
  const owner = event && tagged(event);
  const effect = event && effectOf(event);
  if (!event || !owner || !effect) {
    log.warn('SES event dropped', { reason: !event ? 'malformed or unknown event' : !owner ? 'no Postlane tags' : 'missing event body' });
    return 'ignored';
  }
  if (!effect.email) {
    log.info('SES event recorded', { accountId: owner.accountId, emailId: owner.emailId, eventType: event.eventType, bounceType: event.bounce?.bounceType });
    return 'applied';
  }
  if (effect.suppress) {
    await applyBounceOrComplaint(owner, effect.suppress.reason, effect.suppress.addresses, now);
    return 'applied';
  }
  if (event.eventType === 'Delivery' && event.delivery) {
    await recordDelivery(owner.accountId, event.delivery.recipients, new Date(event.delivery.timestamp ?? now).toISOString());
  }
  await changeEmailStatus(owner.accountId, owner.emailId, effect.email.from, effect.email.to);
  return 'applied';
}
