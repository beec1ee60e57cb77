/**
 * The broadcast engine: the steps the broadcast queue carries
 * (shared/broadcasts/queue.ts), each safe to run more than once.
 *
 * - `start`: a scheduled broadcast's time came; it starts like a send now,
 *   if it is still scheduled for that time.
 * - `plan`: one page of the audience's subscribed contacts, filtered by the
 *   segment and the suppression list, becomes numbered batches (the snapshot)
 *   and their `batch` steps; the next page's step follows, the last records
 *   the totals.
 * - `batch`: sends one batch. The attempt takes the batch's lease (one
 *   conditional write, so of racing attempts one sends) and, before each
 *   group of SEND_CONCURRENCY messages goes to SES, names the group in it
 *   (`inFlight`). Each message's email record (its id derived from the
 *   broadcast and the contact) and its event are written after SES answered,
 *   in one BatchWriteItem. A later attempt counts the recipients that have a
 *   record and never sends them again; a recipient left in flight without one
 *   (a crash between SES and the write, once the lease is older than
 *   BROADCAST_CLAIM_TIMEOUT_MS, five minutes) may have been delivered, so it is settled `failed` with
 *   SEND_UNCONFIRMED, never sent again (at most once: a lost message over a
 *   second copy). The batch's outcome is added to the broadcast's counters
 *   once (finishBatch), and the last batch completes the broadcast. It
 *   charges the quota to the last email the month has left and pauses the
 *   broadcast for the rest; it reads the cancel's marker before each group
 *   and stops there. Either way what it did is counted at once
 *   (countBatchProgress) and a resume finishes the batch.
 *
 * A batch is paced (./send-pacing.ts): it sends within the window reserved
 * for it at the region's SES rate and the account's rate, or goes back on the
 * queue, unsent, until one opens.
 *
 * Docs: docs/broadcasts.md.
 */
import { config } from '#shared/platform/config.ts';
import { retentionExpiry } from '#shared/platform/retention.ts';
import { outcomeEventItems } from '#shared/messages/email-events.ts';
import { chunked } from '#shared/platform/dynamodb/batches.ts';
import {
  completeBroadcast,
  countBatchProgress,
  finishBatch,
  getBatch,
  getBatchLease,
  getBroadcast,
  isCancelled,
  markInFlight,
  planPageOnce,
  recordPlan,
  releaseBatchLease,
  takeBatchLease,
  updateBroadcastIf,
  BROADCAST_BATCH_SIZE,
  type BroadcastRecord,
} from './store.ts';
import { getAccount } from '#shared/accounts/service.ts';
import { getAudienceProfiles } from '#shared/audiences/service.ts';
import { contactsInStatusAfter, getContacts, type ContactRecord } from '#shared/contacts/service.ts';
import { getEmailRecordsById, putEmailRecords, statsCountItems, type EmailRecord, type EmailStatus } from '#shared/messages/service.ts';
import { getSuppressions } from '#shared/sending/service.ts';
import { domainOf, parseMailbox } from '#shared/sending/address.ts';
import { broadcastQueue, type BroadcastQueue, type BroadcastStep } from './queue.ts';
import { builtinVariables } from '#shared/templates/builtins.ts';
import { escapeHtml } from '#shared/platform/html.ts';
import { listId } from './list-id.ts';
import { sesTransport, type MailTransport, type OutgoingEmail, type SendOutcome } from '#shared/sending/transport.ts';
import { keepEmailContent } from '#shared/sending/service.ts';
import { derivedId, randomBase62 } from '#shared/platform/ids.ts';
import { log } from '#shared/platform/log.ts';
import { contactVariables, inSegment, startScheduledBroadcast } from './service.ts';
import { recordEvent } from '#shared/events/service.ts';
import { quotaMonthOf, releaseQuota, reserveUpTo } from '#shared/sending/quota.ts';
import { nextPageAt, paceBatch, pacedTransport, throttledRetry } from './pacing.ts';
import { trackingIdOf } from '#shared/sending/service.ts';
import { subscriptionLinks } from '#shared/sending/subscription-links.ts';
import { loadTemplate, renderInlineContent, renderLoadedTemplate } from '#shared/templates/service.ts';

/** Contacts read per planner step: 20 batches, well within one Lambda invocation. */
export const PLAN_PAGE_SIZE = 1_000;
/** SES calls in flight per batch: also the group named in the lease per write, and so the most messages a crash leaves unconfirmed. */
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
      await startScheduledBroadcast(step, now);
      return SETTLED;
    case 'plan':
      return planPage(step, deps.queue);
    case 'batch':
      return sendBatch(step, now, deps);
  }
}

/**
 * One page of the snapshot: its batches written, then queued, then the next
 * page's step (or the totals). A paused broadcast is planned to its end all
 * the same, without pacing and without queueing its batches: a resume queues
 * every batch not done, so it reaches the whole snapshot however far the
 * planning had gone when the quota ran out. Only a cancel stops the planner.
 */
async function planPage(step: Extract<BroadcastStep, { kind: 'plan' }>, queue: BroadcastQueue): Promise<StepResult> {
  const { accountId, broadcastId } = step;
  const [broadcast, account] = await Promise.all([getBroadcast(accountId, broadcastId), getAccount(accountId)]);
  if (broadcast?.status !== 'sending' && broadcast?.status !== 'paused') return SETTLED;
  const page = await contactsInStatusAfter(accountId, broadcast.audienceId, 'subscribed', step.after, PLAN_PAGE_SIZE);
  const segment = page.contacts.filter((contact) => inSegment(contact, broadcast.segment));
  // The suppression list holds every "all mail" opt-out too (shared/subscriptions/service.ts), so skipping them costs no read beyond
  // the list's own: one consistent BatchGetItem per 100 addresses here and again in each batch (0 extra units a message).
  const suppressed = await getSuppressions(
    accountId,
    segment.map((contact) => contact.email),
  );
  const recipients = segment.filter((contact) => !suppressed.has(contact.email)).map((contact) => contact.contactId);
  const batches = [];
  for (let start = 0; start < recipients.length; start += BROADCAST_BATCH_SIZE) {
    batches.push({ batch: step.batch + batches.length, contactIds: recipients.slice(start, start + BROADCAST_BATCH_SIZE) });
  }
  const planned = await planPageOnce(accountId, broadcastId, step.after, batches, {
    batches: batches.length,
    recipients: recipients.length,
    ...(page.next === undefined ? {} : { next: page.next }),
  });
  const next = { batch: step.batch + planned.batches, recipients: step.recipients + planned.recipients };
  // Before the batches go out, so that `sent` never passes `recipients` while the planner runs. The status it answers
  // is read after the batches were written: paused then, the resume comes later and queues them itself.
  const status = await recordPlan(accountId, broadcastId, { recipients: next.recipients, ...(planned.next === undefined ? { batches: next.batch } : {}) });
  if (status === 'cancelled') return SETTLED;
  // Unknown (a page's step run again after a later page's recorded more): queued as if sending; a paused broadcast drops them.
  const sending = status !== 'paused';
  // The next page's step first: a planner that stops here is picked up from it, and the sending of this page overlaps the planning of the next.
  if (planned.next !== undefined) {
    // Paced like the batches: planned about a minute before the pages so far are sent, so every queued batch can reserve its window.
    const paced = !sending || broadcast.test || !account ? undefined : await nextPageAt(account, step.due, planned.recipients);
    await queue.enqueue([{ kind: 'plan', accountId, broadcastId, after: planned.next, ...next, ...(paced ? { due: paced.due } : {}) }], paced?.delaySeconds);
  }
  if (sending) {
    await queue.enqueue(Array.from({ length: planned.batches }, (_, index) => ({ kind: 'batch' as const, accountId, broadcastId, batch: step.batch + index })));
  }
  if (planned.next === undefined) {
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

const HELD: StepResult = { settled: false, reason: 'the batch is held by another attempt' };

/** What an earlier record of the recipient counts as in the batch's outcome. */
function finalOf(status: EmailStatus): Final {
  return status === 'suppressed' || status === 'failed' ? status : 'sent';
}

async function sendBatch(step: Extract<BroadcastStep, { kind: 'batch' }>, now: Date, deps: EngineDeps): Promise<StepResult> {
  const { accountId, broadcastId } = step;
  const [broadcast, batch, lease, account] = await Promise.all([
    getBroadcast(accountId, broadcastId),
    getBatch(accountId, broadcastId, step.batch),
    getBatchLease(accountId, broadcastId, step.batch),
    getAccount(accountId),
  ]);
  // Cancelled: nothing more goes out. Paused: resuming queues the unfinished batches again.
  if (broadcast?.status !== 'sending' || !batch || batch.done) return SETTLED;
  if (lease?.holder && now.getTime() - Date.parse(lease.holder.at) < config.BROADCAST_CLAIM_TIMEOUT_MS) return HELD;
  const live = !broadcast.test;
  if (live && !account) throw new Error(`Account ${accountId} vanished during a broadcast`);
  // Paced before the lease, the recipients' reads and the quota: a batch that must wait goes back to the queue having read little and changed nothing.
  // A first attempt reserves for the whole batch (some may be skipped): spare time only ever slows sending down.
  const pacing = live && account ? await paceBatch(account, step, batch.contactIds.length) : undefined;
  if (pacing && 'requeue' in pacing) {
    await deps.queue.enqueue([pacing.requeue.step], pacing.requeue.delaySeconds);
    return SETTLED;
  }
  const token = randomBase62(12);
  if (!(await takeBatchLease(accountId, broadcastId, step.batch, lease, { token, at: now.toISOString() }))) return HELD;
  const [recipients, render, list] = await Promise.all([
    recipientsOf(accountId, broadcast, batch.contactIds),
    renderer(accountId, broadcast, now),
    listIdOf(accountId, broadcast),
  ]);
  const { finals, toSend } = await settleEarlier(accountId, broadcast, recipients, new Set(lease?.inFlight), render, now);
  const schedule = pacing?.schedule;
  const transport = schedule ? pacedTransport(deps.transport, schedule) : deps.transport;
  const month = live && account ? quotaMonthOf(account, now) : undefined;
  // Charged to the last email the month has left; the rest of the batch waits for a resume.
  const charged = month && toSend.length > 0 ? await reserveUpTo(month, toSend.length) : 0;
  const sending = month ? toSend.slice(0, charged) : toSend;
  if (sending.length < toSend.length) {
    // Paused before the messages that fit go out, not after: a resume that comes meanwhile is not undone by this attempt's end.
    await updateBroadcastIf(accountId, broadcastId, ['sending'], { status: 'paused', pausedReason: 'QUOTA_EXCEEDED', updatedAt: now.toISOString() });
  }
  // A throw from here on keeps the charge and the lease: which messages left is not known, and the next attempt settles them as unconfirmed.
  let sent = 0;
  let answered = 0;
  let throttled = false;
  let cancelled = false;
  const giveBackUnsent = async () => {
    if (month && charged > sent) await releaseQuota(month, charged - sent).catch(quotaNotReleased(accountId, broadcastId));
  };
  for (const group of chunked(sending, SEND_CONCURRENCY)) {
    // Rendered before the group is named in flight: a message that fails to render has not left, so nobody of the group is left unconfirmed.
    const messages = await Promise.all(group.map((recipient) => render(recipient.contact!))).catch(async (error: unknown) => {
      // Nothing of this group left and every earlier one is recorded: the batch is given up at once, so its next delivery need not wait for the lease to expire.
      await releaseBatchLease(accountId, broadcastId, step.batch, token);
      await giveBackUnsent();
      throw error;
    });
    // The cancel's marker is read before each group, beside the lease's renewal (no time added): once a cancel is
    // answered, at most the group already handed to SES follows it (docs/broadcasts.md, "What a client can rely on").
    const [held, stop] = await Promise.all([
      markInFlight(
        accountId,
        broadcastId,
        step.batch,
        token,
        group.map((recipient) => recipient.contactId),
        new Date(),
      ),
      isCancelled(accountId, broadcastId),
    ]);
    if (!held) {
      // Taken over: this attempt was presumed dead. What it sent has its records; the taker settles the rest.
      await giveBackUnsent();
      return HELD;
    }
    if (stop) {
      cancelled = true;
      break;
    }
    const outcomes = await Promise.all(group.map((recipient, index) => sendOne(accountId, broadcast, recipient, messages[index]!, list, now, transport)));
    const settled = outcomes.filter((outcome): outcome is Final => outcome !== 'throttled');
    finals.push(...settled);
    answered += settled.length;
    sent += settled.filter((outcome) => outcome === 'sent').length;
    // SES is at its rate: the rest of the batch waits with it.
    throttled = outcomes.includes('throttled');
    if (throttled) break;
  }
  await giveBackUnsent();
  if (throttled) {
    // Every message that left has its record; the others never reached SES, so the next attempt sends them without waiting for the lease.
    await releaseBatchLease(accountId, broadcastId, step.batch, token);
    // Held back by pacing, or SES is at its rate: the batch comes back later instead of failing its messages.
    const retry = throttledRetry(step, schedule, toSend.length - answered);
    await deps.queue.enqueue([retry.step], retry.delaySeconds);
    return SETTLED;
  }
  const count = (status: Final) => finals.filter((final) => final === status).length;
  const outcome = { sent: count('sent'), suppressed: count('suppressed'), failed: count('failed') };
  // The day's statistics ride in the batch's own count, which is made once per message however often the batch runs.
  const stats = (added: { sent: number; failed: number }) =>
    live ? statsCountItems(accountId, new Date(), { sent: added.sent, failed: added.failed }, `${broadcastId}#${step.batch}`) : [];
  if (cancelled || sending.length < toSend.length) {
    // Stopped short (cancelled, or the quota ran out) with nothing in flight: what went out shows in the counts now, not
    // only once a resume finishes the batch.
    await releaseBatchLease(accountId, broadcastId, step.batch, token);
    await countBatchProgress(accountId, broadcastId, step.batch, batch.counted, outcome, stats);
    return SETTLED;
  }
  if (await finishBatch(accountId, broadcastId, step.batch, outcome, batch.counted, stats)) {
    // Completed when the last message is recorded, not when this batch started: broadcast.sent comes after every email.sent.
    await complete(accountId, broadcastId, new Date());
  }
  return SETTLED;
}

const quotaNotReleased = (accountId: string, broadcastId: string) => (error: unknown) =>
  log.error('broadcast quota not released', { accountId, broadcastId, error });

/**
 * The recipients an earlier attempt of the batch settled (counted as they
 * are), those it may have handed to SES without recording them (`inFlight`,
 * or a record an earlier engine left `sending`: settled failed with
 * SEND_UNCONFIRMED, never sent again), and the skipped ones (recorded
 * `suppressed`), written in one batch; the rest are to send.
 */
async function settleEarlier(
  accountId: string,
  broadcast: BroadcastRecord,
  recipients: readonly Recipient[],
  inFlight: ReadonlySet<string>,
  render: Render,
  now: Date,
): Promise<{ finals: Final[]; toSend: Recipient[] }> {
  const existing = await getEmailRecordsById(
    accountId,
    recipients.map((recipient) => recipient.emailId),
  );
  const finals: Final[] = [];
  const toSend: Recipient[] = [];
  const records: EmailRecord[] = [];
  for (const recipient of recipients) {
    const earlier = existing.get(recipient.emailId);
    if (earlier && earlier.status !== 'sending') {
      finals.push(finalOf(earlier.status));
    } else if (earlier || inFlight.has(recipient.contactId)) {
      const subject = earlier?.subject ?? (recipient.contact ? (await render(recipient.contact)).subject : broadcast.subject);
      log.warn('broadcast message unconfirmed: not sent again', { accountId, emailId: recipient.emailId });
      records.push(recordOf(broadcast, recipient, 'failed', subject, now, UNCONFIRMED));
      finals.push('failed');
    } else if (recipient.skip) {
      records.push(recordOf(broadcast, recipient, 'suppressed', broadcast.subject, now, { code: 'RECIPIENT_SUPPRESSED', message: recipient.skip }));
      finals.push('suppressed');
    } else {
      toSend.push(recipient);
    }
  }
  if (records.length > 0) {
    await putEmailRecords(
      accountId,
      records,
      retentionExpiry(now.getTime()),
      records.flatMap((record) => outcomeEventItems(accountId, record, now.getTime())),
      'by the caller',
    );
  }
  return { finals, toSend };
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

/** Renders each recipient's message: its variables, its signed links (naming the broadcast, whose results count their unsubscribes), and a footer with the unsubscribe link when the content has none. */
async function renderer(accountId: string, broadcast: BroadcastRecord, now: Date): Promise<Render> {
  const template = broadcast.templateId === undefined ? undefined : await loadTemplate(accountId, broadcast.templateId);
  return async (contact) => {
    const links = await subscriptionLinks(accountId, contact.email, broadcast.broadcastId);
    const builtins = builtinVariables(now, links);
    const variables = contactVariables(broadcast, contact);
    const rendered = template
      ? await renderLoadedTemplate(template, variables, { subject: broadcast.subject, builtins })
      : await renderInlineContent(broadcast.content!, broadcast.subject, variables, builtins);
    if (rendered.usesUnsubscribeLink) return { ...rendered, unsubscribeUrl: links.oneClickUrl };
    return { ...withFooter(rendered, links.unsubscribeUrl), unsubscribeUrl: links.oneClickUrl };
  };
}

/**
 * The broadcast's `List-Id`: its audience's, under the sender's domain. One
 * read of the audience's name per batch attempt (0.02 read units a message).
 */
async function listIdOf(accountId: string, broadcast: BroadcastRecord): Promise<string | undefined> {
  const profiles = await getAudienceProfiles(accountId, [broadcast.audienceId]);
  return listId(broadcast.audienceId, domainOf(parseMailbox(broadcast.from)!.address), profiles.get(broadcast.audienceId)?.name);
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

/**
 * Sends one recipient's rendered message, then writes its record with its
 * `email.sent` / `email.failed` event in one BatchWriteItem: no condition is
 * needed, the batch's lease names the message in flight, and a rewrite would
 * write the same items. `throttled`: SES refused it outright, nothing left
 * and nothing is written.
 */
async function sendOne(
  accountId: string,
  broadcast: BroadcastRecord,
  recipient: Recipient,
  message: Rendered,
  list: string | undefined,
  now: Date,
  transport: MailTransport,
): Promise<Final | 'throttled'> {
  const email: OutgoingEmail = {
    tags: { accountId, emailId: recipient.emailId, trackingId: trackingIdOf(recipient.emailId, now), broadcastId: broadcast.broadcastId },
    ...(broadcast.tracking ? { tracking: broadcast.tracking } : {}),
    from: parseMailbox(broadcast.from)!,
    to: [recipient.contact!.email],
    cc: [],
    bcc: [],
    replyTo: broadcast.replyTo ? [parseMailbox(broadcast.replyTo)!] : [],
    subject: message.subject,
    html: message.html,
    text: message.text,
    attachments: [],
    unsubscribeUrl: message.unsubscribeUrl,
    ...(list ? { listId: list } : {}),
  };
  // Beside the SES call, not after it; a throttled message's attempt later writes the same object again.
  const sending: Promise<SendOutcome> = broadcast.test ? Promise.resolve({ status: 'sent', messageId: '' }) : transport.send(email);
  const [outcome] = await Promise.all([sending, keepEmailContent(accountId, recipient.emailId, email)]);
  if (outcome.status === 'failed' && outcome.error === 'SES_THROTTLED') return 'throttled';
  // Not the step's start: a batch that started early but finished last would date its messages' events before the broadcast.sent it completes.
  const answeredAt = new Date();
  const record =
    outcome.status === 'sent'
      ? { ...recordOf(broadcast, recipient, 'sent', message.subject, now), ...(outcome.messageId ? { sesMessageId: outcome.messageId } : {}) }
      : recordOf(broadcast, recipient, 'failed', message.subject, now, { code: outcome.error, message: outcome.message });
  await putEmailRecords(accountId, [record], retentionExpiry(now.getTime()), outcomeEventItems(accountId, record, answeredAt.getTime()), 'by the caller');
  return outcome.status;
}
