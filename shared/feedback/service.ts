/**
 * SES feedback: what SES later learns about a message it accepted (event
 * publishing through the configuration set, see lib/feedback.ts). The send
 * path tags every message with its account and email id; an event without
 * them is not ours to act on.
 */
import * as v from 'valibot';
import { findContactsByEmail, recordContactActivity } from '#shared/contacts/service.ts';
import type { TransactItems } from '#shared/platform/dynamodb/client.ts';
import { changeEmail, emailChanges, type EmailChange, type EmailStatus, type StatsCounts } from '#shared/messages/service.ts';
import { putEventItemsOnce } from '#shared/events/service.ts';
import { putSuppression, type SuppressionReason } from '#shared/sending/service.ts';
import { ACCOUNT_TAG, BROADCAST_TAG, EMAIL_TAG, TRACKING_OPTIONS_TAG, TRACKING_TAG } from '#shared/sending/message-tags.ts';
import { broadcastStatsItems } from '#shared/broadcasts/service.ts';
import { tracks } from '#shared/sending/tracking.ts';
import { isId } from '#shared/platform/ids.ts';
import { addLogContext, log } from '#shared/platform/log.ts';
import { changeContactStatus } from '#shared/contacts/service.ts';
import { emailEvent, sesSourceKey, type EmailEventType } from '#shared/messages/email-events.ts';
import { CONTACT_STATUSES, type ContactStatus } from '#shared/audiences/contact-status.ts';

const tagValue = v.optional(v.array(v.string()));
const recipients = v.array(v.object({ emailAddress: v.string() }));
const at = v.optional(v.pipe(v.string(), v.isoTimestamp()));

/** The fields Postlane reads of an SES event publishing record; the rest is ignored. */
const SesEventSchema = v.object({
  eventType: v.picklist(['Bounce', 'Complaint', 'Delivery', 'DeliveryDelay', 'Reject', 'Open', 'Click']),
  mail: v.object({
    messageId: v.string(),
    source: v.optional(v.string()),
    destination: v.optional(v.array(v.string())),
    commonHeaders: v.optional(v.object({ from: v.optional(v.array(v.string())), to: v.optional(v.array(v.string())), subject: v.optional(v.string()) })),
    tags: v.object({ [ACCOUNT_TAG]: tagValue, [EMAIL_TAG]: tagValue, [TRACKING_TAG]: tagValue, [TRACKING_OPTIONS_TAG]: tagValue, [BROADCAST_TAG]: tagValue }),
  }),
  bounce: v.optional(v.object({ bounceType: v.string(), bounceSubType: v.optional(v.string()), bouncedRecipients: recipients })),
  complaint: v.optional(v.object({ complainedRecipients: recipients, complaintFeedbackType: v.optional(v.string()) })),
  delivery: v.optional(v.object({ timestamp: at, recipients: v.array(v.string()) })),
  deliveryDelay: v.optional(v.object({ delayType: v.string(), delayedRecipients: recipients, expirationTime: at })),
  reject: v.optional(v.object({ reason: v.optional(v.string()) })),
  open: v.optional(v.object({ timestamp: at, userAgent: v.optional(v.string()), ipAddress: v.optional(v.string()) })),
  click: v.optional(v.object({ timestamp: at, link: v.string(), userAgent: v.optional(v.string()), ipAddress: v.optional(v.string()) })),
});

type SesEvent = v.InferOutput<typeof SesEventSchema>;

export type FeedbackOutcome = 'applied' | 'ignored';

/** Email record statuses each event may move from: later news never rolls a record back to `delivered`. */
const EMAIL_TRANSITIONS = {
  Delivery: { from: ['sent', 'queued'], to: 'delivered' },
  Reject: { from: ['sent', 'queued'], to: 'rejected' },
  // A bounce can arrive after a delivery event (the receiving server accepted, then returned the message).
  Bounce: { from: ['sent', 'queued', 'delivered'], to: 'bounced' },
  Complaint: { from: ['sent', 'queued', 'delivered', 'bounced'], to: 'complained' },
} satisfies Record<string, { from: readonly EmailStatus[]; to: EmailStatus }>;

/** What SES feedback suppresses for; unsubscribing is the recipient's own doing (subscriptions.ts). */
export type FeedbackReason = Exclude<SuppressionReason, 'unsubscribed' | 'manual'>;

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
async function suppressAddress(owner: { accountId: string; emailId: string }, address: string, reason: FeedbackReason, now: Date): Promise<void> {
  const { accountId } = owner;
  const email = address.toLowerCase();
  const memberships = await findContactsByEmail(accountId, email);
  if (memberships.length === 0) {
    await putSuppression(accountId, email, reason, now, { type: 'email', id: owner.emailId });
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
  owner: Owner,
  reason: FeedbackReason,
  addresses: readonly string[],
  now: Date,
  events: TransactItems = [],
): Promise<void> {
  for (const address of addresses) await suppressAddress(owner, address, reason, now);
  const transition = EMAIL_TRANSITIONS[reason === 'bounced' ? 'Bounce' : 'Complaint'];
  await changeRecording(owner, emailChanges.status(transition.from, transition.to), events, now);
}

/**
 * The record's change, its events and what it counts in the day's
 * statistics in one write. A record that does not take the change (later
 * news came first, or it is gone) still gets the events, SES did report
 * them, but counts nothing: each message counts once per outcome.
 */
async function changeRecording(owner: Owner, change: EmailChange | undefined, events: TransactItems, now: Date): Promise<void> {
  const { accountId, emailId, broadcastId } = owner;
  // What the day counts, the message's broadcast counts too (its sends and failures, the engine counts per batch).
  const forBroadcast = (counts: Partial<StatsCounts>) =>
    broadcastId === undefined
      ? []
      : broadcastStatsItems(
          accountId,
          broadcastId,
          { delivered: counts.delivered, bounced: counts.bounced, complained: counts.complained, opened: counts.opened, clicked: counts.clicked },
          emailId,
        );
  const outcome = change ? await changeEmail(accountId, emailId, change, events, now, forBroadcast) : 'refused';
  if (outcome === 'refused' && events.length > 0) await putEventItemsOnce(events);
}

/** Mail reached these addresses: every contact of the account with one of them was last active then. */
async function recordDelivery(accountId: string, addresses: readonly string[], at: string): Promise<void> {
  for (const address of addresses) {
    for (const membership of await findContactsByEmail(accountId, address.toLowerCase())) {
      await recordContactActivity(accountId, membership.contactId, at);
    }
  }
}

/** Whose message an event is about; `broadcastId` when a broadcast sent it (its results count the event). */
type Owner = { accountId: string; emailId: string; trackingId?: string; broadcastId?: string };

function tagged(event: SesEvent): Owner | undefined {
  const accountId = event.mail.tags[ACCOUNT_TAG]?.[0];
  const emailId = event.mail.tags[EMAIL_TAG]?.[0];
  const trackingId = event.mail.tags[TRACKING_TAG]?.[0];
  const broadcastId = event.mail.tags[BROADCAST_TAG]?.[0];
  if (!accountId || !emailId || !isId('acc', accountId) || !isId('eml', emailId)) return undefined;
  return { accountId, emailId, ...(trackingId ? { trackingId } : {}), ...(broadcastId && isId('bro', broadcastId) ? { broadcastId } : {}) };
}

/** What each notification becomes in the log, and its detail (docs/webhooks.md, "Event catalogue"). */
const EVENT_OF: Record<SesEvent['eventType'], EmailEventType> = {
  Delivery: 'email.delivered',
  DeliveryDelay: 'email.delivery_delayed',
  Bounce: 'email.bounced',
  Complaint: 'email.complained',
  Reject: 'email.rejected',
  Open: 'email.opened',
  Click: 'email.clicked',
};

function detailOf(event: SesEvent): Record<string, unknown> {
  const { bounce, complaint, deliveryDelay, reject, open, click } = event;
  if (bounce) return { bounce: { type: bounce.bounceType, subType: bounce.bounceSubType ?? null } };
  if (complaint) return { complaint: { type: complaint.complaintFeedbackType ?? null } };
  if (deliveryDelay) return { deliveryDelay: { type: deliveryDelay.delayType, expiresAt: deliveryDelay.expirationTime ?? null } };
  if (reject) return { reject: { reason: reject.reason ?? null } };
  if (open) return { open: { timestamp: open.timestamp ?? null, userAgent: open.userAgent ?? null, ipAddress: open.ipAddress ?? null } };
  if (click) return { click: { link: click.link, timestamp: click.timestamp ?? null, userAgent: click.userAgent ?? null, ipAddress: click.ipAddress ?? null } };
  return {};
}

/**
 * Whom the notification is about: the recipients it lists, else the
 * message's own. Opens and clicks repeat, so their time (and the link) is
 * part of what names them; a replay carries the same.
 */
function subjectsOf(event: SesEvent): { recipient: string; sourceKey: string }[] {
  const listed =
    event.bounce?.bouncedRecipients.map((r) => r.emailAddress) ??
    event.complaint?.complainedRecipients.map((r) => r.emailAddress) ??
    event.deliveryDelay?.delayedRecipients.map((r) => r.emailAddress) ??
    event.delivery?.recipients;
  const own = event.mail.commonHeaders?.to?.[0] ?? event.mail.destination?.[0] ?? '';
  const repeat = event.open ? [event.open.timestamp ?? ''] : event.click ? [event.click.timestamp ?? '', event.click.link] : [];
  return (listed?.length ? listed : [own]).map((recipient) => ({
    recipient,
    sourceKey: [sesSourceKey(event.mail.messageId, event.eventType, recipient), ...repeat].join(':'),
  }));
}

/** The `email.*` events one notification stands for: one per recipient it names. */
function eventsOf(event: SesEvent, owner: Owner, now: Date): TransactItems {
  const { mail } = event;
  const facts = {
    emailId: owner.emailId,
    ...(owner.trackingId ? { trackingId: owner.trackingId } : {}),
    from: mail.commonHeaders?.from?.[0] ?? mail.source ?? '',
    subject: mail.commonHeaders?.subject ?? '',
  };
  const detail = detailOf(event);
  return subjectsOf(event).flatMap(({ recipient, sourceKey }) =>
    emailEvent(owner.accountId, EVENT_OF[event.eventType], { ...facts, to: recipient }, sourceKey, now.getTime(), detail),
  );
}

/** The effect one event has: the addresses to suppress and how, and the record's change (none for a transient bounce or a delay). */
function effectOf(event: SesEvent, now: Date): { suppress?: { reason: FeedbackReason; addresses: string[] }; email?: EmailChange } | undefined {
  switch (event.eventType) {
    case 'Delivery':
    case 'Reject':
      return { email: statusChange(EMAIL_TRANSITIONS[event.eventType]) };
    case 'DeliveryDelay':
      return event.deliveryDelay ? {} : undefined;
    // One tracking set tracks both (shared/sending/tracking.ts): what the message did not ask for is not counted.
    case 'Open':
      if (!event.open || !tracks(event.mail.tags[TRACKING_OPTIONS_TAG]?.[0], 'opens')) return undefined;
      return { email: emailChanges.opened(new Date(event.open.timestamp ?? now).toISOString()) };
    case 'Click':
      if (!event.click || !tracks(event.mail.tags[TRACKING_OPTIONS_TAG]?.[0], 'clicks')) return undefined;
      return { email: emailChanges.clicked(new Date(event.click.timestamp ?? now).toISOString()) };
    case 'Bounce':
      if (!event.bounce) return undefined;
      // Transient (mailbox full, auto-reply) and Undetermined bounces say nothing final about the address.
      if (event.bounce.bounceType !== 'Permanent') return {};
      return { suppress: { reason: 'bounced', addresses: event.bounce.bouncedRecipients.map((r) => r.emailAddress) } };
    case 'Complaint':
      if (!event.complaint) return undefined;
      return { suppress: { reason: 'complained', addresses: event.complaint.complainedRecipients.map((r) => r.emailAddress) } };
  }
}

function statusChange(transition: { from: readonly EmailStatus[]; to: EmailStatus }): EmailChange {
  return emailChanges.status(transition.from, transition.to);
}

/**
 * Applies one SES event publishing record (what EventBridge carries as
 * `detail`): the record's change and the event it becomes, in one write,
 * once however often SES or EventBridge deliver it. Malformed, unknown or
 * untagged events are logged and dropped (retrying them would never
 * succeed); DynamoDB errors propagate so the event is received again.
 */
export async function applySesEvent(record: unknown, now: Date): Promise<FeedbackOutcome> {
  const parsed = v.safeParse(SesEventSchema, record);
  const event = parsed.success ? parsed.output : undefined;
  const owner = event && tagged(event);
  const effect = event && effectOf(event, now);
  if (!event || !owner || !effect) {
    log.warn('SES event dropped', { reason: !event ? 'malformed or unknown event' : !owner ? 'no Postlane tags' : 'missing event body, or not tracked' });
    return 'ignored';
  }
  const events = eventsOf(event, owner, now);
  if (effect.suppress) {
    await applyBounceOrComplaint(owner, effect.suppress.reason, effect.suppress.addresses, now, events);
    return 'applied';
  }
  if (event.eventType === 'Delivery' && event.delivery) {
    await recordDelivery(owner.accountId, event.delivery.recipients, new Date(event.delivery.timestamp ?? now).toISOString());
  }
  await changeRecording(owner, effect.email, events, now);
  return 'applied';
}

/** An EventBridge event as the rule put it on the feedback queue (lib/feedback.ts): SES's record is its `detail`. */
export interface QueuedSesEvent {
  'detail-type'?: unknown;
  detail?: unknown;
}

/**
 * The event a feedback queue message's body holds. A body that is not JSON
 * throws: the rule never writes one, and a message no retry can apply is
 * left for an operator to read.
 */
export function decodeQueuedSesEvent(body: string): QueuedSesEvent {
  return (JSON.parse(body) ?? {}) as QueuedSesEvent;
}

/**
 * Applies the SES event a feedback queue message carries. The feedback
 * worker and `admin feedback replay` (which reads the same bodies from the
 * dead-letter queue) both apply messages with it.
 */
export function applyQueuedSesEvent(event: QueuedSesEvent, now: Date): Promise<FeedbackOutcome> {
  addLogContext({ detailType: event['detail-type'] });
  return applySesEvent(event.detail, now);
}
