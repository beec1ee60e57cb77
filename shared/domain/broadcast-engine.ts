/**
 * The broadcast engine: the steps the broadcast queue carries
 * (shared/email/broadcast-queue.ts), each safe to run more than once.
 *
 * - `start`: a scheduled broadcast's time came; it starts like a send now.
 * - `plan`: one page of the audience's subscribed contacts, filtered by the
 *   segment and the suppression list, becomes numbered batches (the snapshot)
 *   and their `batch` steps; the next page's step follows, the last records
 *   the totals.
 * - `batch`: sends one batch. Each recipient's message is claimed before SES
 *   with a conditional write of its email record (its id derived from the
 *   broadcast and the contact, so every attempt names the same record), and
 *   settled with SES's message id after. A claim found still `sending` by a
 *   later attempt, older than CLAIM_TIMEOUT_MS, is a crash between SES and the
 *   settle: SES may have taken that message, so it is never sent again but
 *   settled `failed` with SEND_UNCONFIRMED (at most once: a lost message over
 *   a second copy). The batch's outcome is added to the broadcast's counters
 *   once (finishBatch), and the last batch completes the broadcast.
 *
 * A batch is paced (./send-pacing.ts): it sends within the window reserved
 * for it at the region's SES rate and the account's rate, or goes back on the
 * queue, unsent, until one opens.
 *
 * Docs: docs/broadcasts.md.
 */
import { retentionExpiry } from './retention.ts';
import { factsOf, failedEvent, sentEvent } from './email-events.ts';
import {
  completeBroadcast,
  finishBatch,
  getBatch,
  getBroadcast,
  putBatches,
  recordPlan,
  updateBroadcastIf,
  BROADCAST_BATCH_SIZE,
  type BroadcastRecord,
} from '#shared/data/broadcasts.ts';
import { getAccount } from '#shared/data/accounts.ts';
import { contactsInStatusAfter, getContacts, type ContactRecord } from '#shared/data/contacts.ts';
import { claimEmailRecord, releaseEmailClaim, settleClaimedEmail, type EmailRecord, type EmailStatus } from '#shared/data/emails.ts';
import { getSuppressions } from '#shared/data/suppressions.ts';
import { parseMailbox } from '#shared/email/address.ts';
import { broadcastQueue, type BroadcastQueue, type BroadcastStep } from '#shared/email/broadcast-queue.ts';
import { builtinVariables } from '#shared/email/builtins.ts';
import { escapeHtml } from '#shared/email/html.ts';
import { sesTransport, type MailTransport, type SendOutcome } from '#shared/email/transport.ts';
import { derivedId, randomBase62 } from '#shared/ids.ts';
import { log } from '#shared/log.ts';
import { contactVariables, inSegment, startBroadcast } from './broadcasts.ts';
import { recordEvent } from './events.ts';
import { QuotaExceededError, quotaMonthOf, releaseQuota, reserveQuota } from './quota.ts';
import { paceBatch, pacedTransport, throttledRetry } from './send-pacing.ts';
import { mapConcurrently, trackingIdOf } from './sending.ts';
import { subscriptionLinks } from './subscription-links.ts';
import { loadTemplate, renderInlineContent, renderLoadedTemplate } from './templates.ts';

/** Contacts read per planner step: 20 batches, well within one Lambda invocation. */
export const PLAN_PAGE_SIZE = 1_000;
/**
 * A claim older than this was abandoned by a crashed attempt (the queue's
 * visibility timeout is longer than a batch takes, so a live attempt is younger).
 */
export const CLAIM_TIMEOUT_MS = Number(process.env.BROADCAST_CLAIM_TIMEOUT_MS ?? 5 * 60_000);
/** SES calls in flight per batch. */
const SEND_CONCURRENCY = 10;

/** What the worker does with the step's queue message: delete it, or leave it to come back. */
export type StepResult = { settled: true } | { settled: false; reason: string };
const SETTLED: StepResult = { settled: true };

export interface EngineDeps {
  transport: MailTransport;
  queue: BroadcastQueue;
}

let defaults: EngineDeps | undefined;
function defaultDeps(): EngineDeps {
  defaults ??= { transport: sesTransport(), queue: broadcastQueue() };
  return defaults;
}

export async function runStep(step: BroadcastStep, now: Date, deps: EngineDeps = defaultDeps()): Promise<StepResult> {
  switch (step.kind) {
    case 'start':
      await startBroadcast(step.accountId, step.broadcastId, now);
      return SETTLED;
    case 'plan':
      return planPage(step, deps.queue);
    case 'batch':
      return sendBatch(step, now, deps);
  }
}

/** One page of the snapshot: its batches written, then queued, then the next page's step (or the totals). */
async function planPage(step: Extract<BroadcastStep, { kind: 'plan' }>, queue: BroadcastQueue): Promise<StepResult> {
  const { accountId, broadcastId } = step;
  const broadcast = await getBroadcast(accountId, broadcastId);
  if (broadcast?.status !== 'sending') return SETTLED;
  const page = await contactsInStatusAfter(accountId, broadcast.audienceId, 'subscribed', step.after, PLAN_PAGE_SIZE);
  const segment = page.contacts.filter((contact) => inSegment(contact, broadcast.segment));
  const suppressed = await getSuppressions(
    accountId,
    segment.map((contact) => contact.email),
  );
  const recipients = segment.filter((contact) => !suppressed.has(contact.email)).map((contact) => contact.contactId);
  const batches = [];
  for (let start = 0; start < recipients.length; start += BROADCAST_BATCH_SIZE) {
    batches.push({ batch: step.batch + batches.length, contactIds: recipients.slice(start, start + BROADCAST_BATCH_SIZE) });
  }
  await putBatches(accountId, broadcastId, batches);
  const next = { batch: step.batch + batches.length, recipients: step.recipients + recipients.length };
  // The next page's step first: a planner that stops here is picked up from it, and the sending of this page overlaps the planning of the next.
  const steps: BroadcastStep[] = [
    ...(page.next === undefined ? [] : [{ kind: 'plan' as const, accountId, broadcastId, after: page.next, ...next }]),
    ...batches.map((batch) => ({ kind: 'batch' as const, accountId, broadcastId, batch: batch.batch })),
  ];
  await queue.enqueue(steps);
  if (page.next === undefined) {
    await recordPlan(accountId, broadcastId, { recipients: next.recipients, batches: next.batch });
    // Every batch may be done already (or there were none): completing is the last finisher's, and the planner may be it.
    await complete(accountId, broadcastId, new Date());
  }
  return SETTLED;
}

async function complete(accountId: string, broadcastId: string, now: Date): Promise<void> {
  const completed = await completeBroadcast(accountId, broadcastId, now);
  if (!completed) return;
  const { recipients, sent, suppressed, failed } = completed.counts;
  await recordEvent(
    accountId,
    { type: 'broadcast.sent', data: { broadcastId, name: completed.name, recipients, sent, suppressed, failed }, sourceKey: `broadcast:${broadcastId}:sent` },
    now.getTime(),
  );
}

/** One recipient of a batch, as the batch found it. */
interface Recipient {
  contactId: string;
  contact: ContactRecord | undefined;
  emailId: string;
  /** Why it is skipped (no longer subscribed, suppressed, gone), or undefined to send. */
  skip: string | undefined;
}

type Final = Extract<EmailStatus, 'sent' | 'failed' | 'suppressed'>;

/** Outcome of one recipient in this attempt: final, or to be retried later (throttled, or another attempt holds it). */
type RecipientOutcome = { final: Final; charged: boolean } | { final: undefined; throttled: boolean };

async function sendBatch(step: Extract<BroadcastStep, { kind: 'batch' }>, now: Date, deps: EngineDeps): Promise<StepResult> {
  const { accountId, broadcastId } = step;
  const [broadcast, batch] = await Promise.all([getBroadcast(accountId, broadcastId), getBatch(accountId, broadcastId, step.batch)]);
  // Cancelled: nothing more goes out. Paused: resuming queues the unfinished batches again.
  if (broadcast?.status !== 'sending' || !batch || batch.done) return SETTLED;
  const recipients = await recipientsOf(accountId, broadcast, batch.contactIds);
  const live = !broadcast.test;
  const deliverable = recipients.filter((recipient) => !recipient.skip);
  const account = live ? await getAccount(accountId) : undefined;
  if (live && !account) throw new Error(`Account ${accountId} vanished during a broadcast`);
  // Paced before the quota is charged: a batch that must wait goes back to the queue having changed nothing.
  const pacing = account && deliverable.length > 0 ? await paceBatch(account, deliverable.length) : undefined;
  if (pacing && 'laterSeconds' in pacing) {
    await deps.queue.enqueue([step], pacing.laterSeconds);
    return SETTLED;
  }
  const schedule = pacing?.schedule;
  const transport = schedule ? pacedTransport(deps.transport, schedule) : deps.transport;
  const month = account ? quotaMonthOf(account, now) : undefined;
  if (month && deliverable.length > 0) {
    try {
      await reserveQuota(month, deliverable.length);
    } catch (error) {
      if (!(error instanceof QuotaExceededError)) throw error;
      await updateBroadcastIf(accountId, broadcastId, ['sending'], { status: 'paused', pausedReason: 'QUOTA_EXCEEDED', updatedAt: now.toISOString() });
      return SETTLED;
    }
  }
  // A throw from here on keeps the charge: which messages left is not known, and the next attempt charges only what it sends.
  const render = await renderer(accountId, broadcast, now);
  const outcomes = await mapConcurrently(recipients, SEND_CONCURRENCY, (recipient) => settleRecipient(accountId, broadcast, recipient, render, now, transport));
  const unsentCharges = deliverable.length - outcomes.filter((outcome) => outcome.final !== undefined && 'charged' in outcome && outcome.charged).length;
  if (month && unsentCharges > 0)
    await releaseQuota(month, unsentCharges).catch((error: unknown) => log.error('broadcast quota not released', { accountId, broadcastId, error }));
  const pending = outcomes.filter((outcome) => outcome.final === undefined);
  if (pending.length > 0) {
    const throttled = pending.some((outcome) => 'throttled' in outcome && outcome.throttled);
    if (throttled) {
      // Held back by pacing, or SES is at its rate: the batch comes back later instead of failing its messages.
      const retry = throttledRetry(step, schedule);
      await deps.queue.enqueue([retry.step], retry.delaySeconds);
      return SETTLED;
    }
    return { settled: false, reason: `${pending.length} recipients held by another attempt` };
  }
  const count = (status: Final) => outcomes.filter((outcome) => outcome.final === status).length;
  if (await finishBatch(accountId, broadcastId, step.batch, { sent: count('sent'), suppressed: count('suppressed'), failed: count('failed') })) {
    await complete(accountId, broadcastId, now);
  }
  return SETTLED;
}

/** The batch's contacts as they are now: one that unsubscribed, got suppressed or was deleted since the snapshot is skipped. */
async function recipientsOf(accountId: string, broadcast: BroadcastRecord, contactIds: string[]): Promise<Recipient[]> {
  const contacts = await getContacts(accountId, contactIds);
  const suppressions = await getSuppressions(
    accountId,
    [...contacts.values()].map((contact) => contact.email),
  );
  const startedAt = new Date(broadcast.startedAt ?? broadcast.createdAt).getTime();
  return contactIds.map((contactId) => {
    const contact = contacts.get(contactId);
    const skip = !contact
      ? 'The contact was deleted'
      : contact.status !== 'subscribed'
        ? `The contact is ${contact.status}`
        : suppressions.has(contact.email)
          ? `The address is ${suppressions.get(contact.email)} in the suppression list`
          : undefined;
    return { contactId, contact, emailId: derivedId('eml', startedAt, `${broadcast.broadcastId}/${contactId}`), skip };
  });
}

interface Rendered {
  subject: string;
  html: string;
  text: string;
  unsubscribeUrl: string;
}

type Render = (contact: ContactRecord) => Promise<Rendered>;

/** Renders each recipient's message: its variables, its signed links, and a footer with the unsubscribe link when the content has none. */
async function renderer(accountId: string, broadcast: BroadcastRecord, now: Date): Promise<Render> {
  const template = broadcast.templateId === undefined ? undefined : await loadTemplate(accountId, broadcast.templateId);
  return async (contact) => {
    const links = await subscriptionLinks(accountId, contact.email);
    const builtins = builtinVariables(now, links);
    const variables = contactVariables(broadcast, contact);
    const rendered = template
      ? await renderLoadedTemplate(template, variables, { subject: broadcast.subject, builtins })
      : await renderInlineContent(broadcast.content!, broadcast.subject, variables, builtins);
    if (rendered.usesUnsubscribeLink) return { ...rendered, unsubscribeUrl: links.oneClickUrl };
    return { ...withFooter(rendered, links.unsubscribeUrl), unsubscribeUrl: links.oneClickUrl };
  };
}

/** The unsubscribe footer, before `</body>` when the HTML is a whole document. */
export function withFooter(message: { subject: string; html: string; text: string }, unsubscribeUrl: string): { subject: string; html: string; text: string } {
  const footer = `<p style="font-size:12px;color:#6b7280;">You receive this email because you subscribed. <a href="${escapeHtml(unsubscribeUrl)}">Unsubscribe</a></p>`;
  const at = message.html.lastIndexOf('</body>');
  const html = at === -1 ? `${message.html}\n${footer}` : `${message.html.slice(0, at)}${footer}\n${message.html.slice(at)}`;
  return { subject: message.subject, html, text: `${message.text}\n\nUnsubscribe: ${unsubscribeUrl}` };
}

function recordOf(
  broadcast: BroadcastRecord,
  recipient: Recipient,
  status: EmailStatus,
  subject: string,
  now: Date,
  error?: EmailRecord['error'],
): EmailRecord {
  return {
    emailId: recipient.emailId,
    trackingId: trackingIdOf(recipient.emailId, now),
    type: 'broadcast',
    from: broadcast.from,
    to: recipient.contact?.email ?? '',
    cc: [],
    bcc: [],
    ...(broadcast.replyTo ? { replyTo: broadcast.replyTo } : {}),
    subject,
    status,
    ...(error ? { error } : {}),
    test: broadcast.test,
    broadcastId: broadcast.broadcastId,
    createdAt: now.toISOString(),
  };
}

const UNCONFIRMED = {
  code: 'SEND_UNCONFIRMED',
  message: 'A worker stopped between handing the message to SES and recording it; it may have been delivered, so it is not sent again',
};

/** A recipient's final status in this attempt, sending its message if nobody has. */
async function settleRecipient(
  accountId: string,
  broadcast: BroadcastRecord,
  recipient: Recipient,
  render: Render,
  now: Date,
  transport: MailTransport,
): Promise<RecipientOutcome> {
  const from = parseMailbox(broadcast.from)!;
  const token = randomBase62(12);
  const claim = { token, claimedAt: now.toISOString() };
  if (recipient.skip) {
    const skipped = recordOf(broadcast, recipient, 'suppressed', broadcast.subject, now, { code: 'RECIPIENT_SUPPRESSED', message: recipient.skip });
    const result = await claimEmailRecord(accountId, skipped, claim, retentionExpiry(now.getTime()));
    return result.claimed ? { final: 'suppressed', charged: false } : existingOutcome(accountId, result.existing, now);
  }
  const message = await render(recipient.contact!);
  const record = recordOf(broadcast, recipient, 'sending', message.subject, now);
  const result = await claimEmailRecord(accountId, record, claim, retentionExpiry(now.getTime()));
  if (!result.claimed) return existingOutcome(accountId, result.existing, now);
  const outcome: SendOutcome = broadcast.test
    ? { status: 'sent', messageId: '' }
    : await transport.send({
        tags: { accountId, emailId: recipient.emailId },
        from,
        to: [recipient.contact!.email],
        cc: [],
        bcc: [],
        replyTo: broadcast.replyTo ? [parseMailbox(broadcast.replyTo)!] : [],
        subject: message.subject,
        html: message.html,
        text: message.text,
        attachments: [],
        unsubscribeUrl: message.unsubscribeUrl,
      });
  if (outcome.status === 'failed' && outcome.error === 'SES_THROTTLED') {
    // SES refused it outright: nothing left, so the claim goes and a later attempt sends it.
    await releaseEmailClaim(accountId, recipient.emailId, token);
    return { final: undefined, throttled: true };
  }
  const error = outcome.status === 'failed' ? { code: outcome.error, message: outcome.message } : undefined;
  await settleClaimedEmail(
    accountId,
    recipient.emailId,
    token,
    error ? { status: 'failed', error } : { status: 'sent', ...(outcome.status === 'sent' && outcome.messageId ? { sesMessageId: outcome.messageId } : {}) },
    error ? failedEvent(accountId, factsOf(record), error, now.getTime()) : sentEvent(accountId, factsOf(record), now.getTime()),
  );
  return { final: outcome.status, charged: outcome.status === 'sent' };
}

/** A recipient an earlier attempt claimed: its final status, or the abandoned claim settled as unconfirmed, or still held. */
async function existingOutcome(
  accountId: string,
  existing: EmailRecord & { claim?: { token: string; claimedAt: string } },
  now: Date,
): Promise<RecipientOutcome> {
  if (existing.status !== 'sending')
    return { final: existing.status === 'suppressed' ? 'suppressed' : existing.status === 'failed' ? 'failed' : 'sent', charged: false };
  const claimedAt = new Date(existing.claim?.claimedAt ?? existing.createdAt).getTime();
  if (now.getTime() - claimedAt < CLAIM_TIMEOUT_MS) return { final: undefined, throttled: false };
  if (
    existing.claim &&
    (await settleClaimedEmail(
      accountId,
      existing.emailId,
      existing.claim.token,
      { status: 'failed', error: UNCONFIRMED },
      failedEvent(accountId, factsOf(existing), UNCONFIRMED, now.getTime()),
    ))
  ) {
    log.warn('broadcast message unconfirmed: not sent again', { accountId, emailId: existing.emailId });
    return { final: 'failed', charged: false };
  }
  return { final: undefined, throttled: false };
}
