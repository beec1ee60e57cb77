/**
 * What the three send endpoints share: the sender check, suppression,
 * rendering per recipient, the quota, the hand-off to the transport and the
 * email records. Each recipient gets a message of its own, with its own
 * email id, tracking id and signed unsubscribe links.
 *
 * A signed link acts on the address it was made for, so a message whose
 * render read one is never copied to cc or bcc: each of those addresses gets
 * a message of its own instead, addressed to it alone, with its own links
 * (docs/api.md, "Sending email"). Messages rendered without reading them
 * carry cc and bcc as given (`bodiesOf`).
 *
 * Order matters: everything that can refuse the request (sender, template,
 * rendering, OTP window, quota) runs before the first message leaves, so a
 * refused request sends nothing and charges nothing.
 */
import { newId } from '#shared/platform/ids.ts';
import { findContactsByEmail } from '#shared/contacts/service.ts';
import { putEmailRecords, type EmailRecord, type EmailType } from '#shared/messages/service.ts';
import { suppressionsRead, type SuppressionReason } from './suppression-store.ts';
import { emailsSentRead } from '#shared/accounts/service.ts';
import { quotaPeriod } from '#shared/accounts/service.ts';
import { formatMailbox, type Mailbox } from './address.ts';
import { sendConcurrency, type OutgoingAttachment } from '#shared/attachments/budget.ts';
import { trackedBuiltins } from '#shared/templates/builtins.ts';
import { sesTransport, type DeliveryErrorCode, type MailTransport, type OutgoingEmail, type SendOutcome } from './transport.ts';
import type { Tracking } from './tracking.ts';
import { PostlaneError, ValidationError } from '#shared/platform/errors.ts';
import { SEND_LIMITS, type singleSendResultReply } from './schema.ts';
import type * as v from 'valibot';
import { log } from '#shared/platform/log.ts';
import type { Principal } from '#shared/accounts/api-keys.ts';
import type { ContactStatus } from '#shared/audiences/contact-status.ts';
import { EffectCommittedError, type ClaimGate } from './idempotency.ts';
import { emailFactsOfRecord, outcomeEventItems } from '#shared/messages/email-events.ts';
import { retentionExpiry } from '#shared/platform/retention.ts';
import { checkVerifiedSender, senderDomainRead } from './sender.ts';
import type { DomainRecord } from '#shared/domains/service.ts';
import { quotaLeft, quotaMonthFor, releaseQuota, remaining, reserveEach, type QuotaMonth } from './quota.ts';
import { enqueueRetries, QUEUE_REFUSED, queueBodyFor, type PendingRetry } from './retry.ts';
import { subscriptionLinks } from './subscription-links.ts';
import { keepEmailContent } from './content.ts';
import { renderInlineContent, renderLoadedTemplate, templateLookup } from '#shared/templates/service.ts';
import type { TemplateRecord } from '#shared/templates/service.ts';
import { readTogether, type KeyedRead } from '#shared/platform/dynamodb/batches.ts';

export interface SendContext {
  principal: Principal;
  now: Date;
}

/**
 * What delivering needs of the sender: its account, and whether it sends as a
 * test key. Public forms deliver as their account with no key at all, in the
 * environment of the key that last created or changed the form.
 */
export interface DeliveryContext extends Omit<SendContext, 'principal'> {
  principal: Pick<Principal, 'accountId' | 'env'> & Partial<Pick<Principal, 'monthlyQuota' | 'domain'>>;
}

/** The sender's own HTML, or a stored template (whose subject the request may replace). */
export type MessageContent = { html: string; subject: string } | { templateId: string; subject?: string };

export interface Delivery {
  type: EmailType;
  from: Mailbox;
  /** Distinct, normalised addresses; one message each. */
  recipients: readonly string[];
  cc: readonly string[];
  bcc: readonly string[];
  replyTo: Mailbox | undefined;
  content: MessageContent;
  variables: Record<string, unknown>;
  attachments: readonly OutgoingAttachment[];
  /** Contact statuses that keep a recipient from being sent to. */
  suppressWhen: readonly ContactStatus[];
  /** A last check per deliverable recipient before anything is charged (the OTP window). */
  admit?: (recipient: string) => Promise<void>;
  /** Opens and clicks to track (SES configuration sets, shared/sending/tracking.ts); none when absent. */
  tracking?: Tracking;
  /** What the message carries that its kept content must not (an OTP code): masked there, so the log never serves it. */
  secret?: string;
  /**
   * An idempotency key's claim settling beside the reads (shared/sending/idempotency.ts,
   * `overlappingClaim`): awaited before the first write; `completion` gives the
   * items that complete the key, written with the records.
   */
  claim?: { held: Promise<void>; completion(messages: readonly MessageResult[]): Record<string, unknown>[] };
}

export type FailureCode = DeliveryErrorCode | 'RECIPIENT_SUPPRESSED' | 'SEND_FAILED';

export interface MessageResult {
  recipient: string;
  /** A cc or bcc address's own copy of a message that carries recipient-bound links. */
  copyOf?: 'cc' | 'bcc';
  emailId: string;
  trackingId: string;
  /** queued: SES throttled it and it waits on the retry queue; accepted and charged like a sent one. */
  status: 'sent' | 'queued' | 'failed' | 'suppressed';
  error?: { code: FailureCode; message: string };
  /** The unexpected error behind SEND_FAILED: logged, and rethrown by single sends. */
  cause?: unknown;
}

/** A cc or bcc address left out of every message. */
export interface LeftOutAddress {
  recipient: string;
  error: { code: 'RECIPIENT_SUPPRESSED'; message: string };
}

export interface DeliveryReport {
  messages: MessageResult[];
  leftOut: LeftOutAddress[];
  emailsRemaining: number;
}

/** Statuses that suppress a recipient of POST /api/email/send (docs/api.md, "Sending email"). */
export const SUPPRESSED_FOR_EMAIL: readonly ContactStatus[] = ['unsubscribed', 'bounced', 'complained'];
/**
 * OTP and transactional mail is what the recipient asked for (a code, a
 * receipt): unsubscribing from an account's mailings does not stop it, but
 * an address that bounced or complained is not sent to.
 */
export const SUPPRESSED_FOR_TRANSACTIONAL: readonly ContactStatus[] = ['bounced', 'complained'];

/** SES calls in flight per request: enough to send 50 messages in a few round trips without a burst that SES throttles. */
const SEND_CONCURRENCY = 10;

// Pure: bundles that import this module without sending drop the transport and the SES SDK (shared/sending/transport.ts).
const defaultTransport = /* @__PURE__ */ sesTransport();

export { parseMailboxField } from './sender.ts';

/**
 * Inline `content` with a `subject`, or a `templateId` whose subject the
 * request may replace. The send schemas (`withContentOrTemplate` in
 * shared/sending/schema.ts) let nothing else through, so the API
 * description and the fuzzers see the rule too.
 */
export function contentOf(input: { content?: string; templateId?: string; subject?: string }): MessageContent {
  if (input.templateId !== undefined) return { templateId: input.templateId, ...(input.subject === undefined ? {} : { subject: input.subject }) };
  if (input.content === undefined || input.subject === undefined)
    throw new Error('content with subject, or templateId: the send schemas check this before the domain runs');
  return { html: input.content, subject: input.subject };
}

/** `svc_<ms>_<sequence>`: the sequence is the email id's, so a tracking id also names its record. */
export function trackingIdOf(emailId: string, now: Date): string {
  return `svc_${now.getTime()}_${emailId.slice('eml_'.length)}`;
}

/** What one reader's message shows: subject and bodies, and the List-Unsubscribe URL when it shows the unsubscribe link. */
interface Body {
  subject: string;
  html: string;
  text: string;
  unsubscribeUrl: string | undefined;
  /** Rendered with its reader's signed links (its render read one), so it may go to nobody else. */
  bound: boolean;
}

interface Draft extends Body {
  recipient: string;
  emailId: string;
  trackingId: string;
  /** Kept back (unsubscribed, bounced or complained, in a contact or on the suppression list): never handed to SES. */
  suppressed: boolean;
  /** Who else gets this very message. */
  cc: readonly string[];
  bcc: readonly string[];
  copyOf?: 'cc' | 'bcc';
}

type LoadedTemplate = TemplateRecord;

/** What one delivery found in the reads: its sender's domain, its template, and the status keeping each of its addresses back. */
interface DeliveryReads {
  domain: DomainRecord | undefined;
  template: () => LoadedTemplate | undefined;
  suppressed: Set<string>;
}

/**
 * What sends read before they send, in one wave however many there are: the
 * contacts of each distinct address (a query each, in parallel) beside one
 * batch read of every sender's domain, the account's suppression list for
 * the addresses, the templates, and with `usagePeriod` (sends that charge
 * nothing: a test key's) the month's emails sent. Keys named twice are read
 * once (shared/platform/dynamodb/batches.ts).
 */
async function readForSends(deliveries: readonly Delivery[], addresses: readonly (readonly string[])[], accountId: string, usagePeriod: string | undefined) {
  const normalised = addresses.map((list) => list.map((address) => address.toLowerCase()));
  const distinct = [...new Set(normalised.flat())];
  const [memberships, [domains, listed, templates, emailsSent]] = await Promise.all([
    Promise.all(distinct.map((address) => findContactsByEmail(accountId, address))),
    readTogether(
      allOf(deliveries.map((delivery) => senderDomainRead(accountId, delivery.from))),
      suppressionsRead(accountId, distinct),
      allOf<() => LoadedTemplate | undefined>(
        deliveries.map(({ content }) => ('templateId' in content ? templateLookup(accountId, content.templateId) : NO_TEMPLATE)),
      ),
      usagePeriod === undefined ? NOT_READ : emailsSentRead(accountId, usagePeriod),
    ),
  ]);
  const contactsOf = new Map(distinct.map((address, index) => [address, memberships[index]!]));
  const reads = deliveries.map(
    (delivery, index): DeliveryReads => ({
      domain: domains[index],
      template: templates[index]!,
      suppressed: suppressionsOf(
        addresses[index]!,
        normalised[index]!.map((address) => contactsOf.get(address)!),
        normalised[index]!.map((address) => listed.get(address)),
        delivery.suppressWhen,
      ),
    }),
  );
  return { reads, emailsSent };
}

/** Several keyed reads of one kind as one, their results in order. */
function allOf<T>(reads: readonly KeyedRead<T>[]): KeyedRead<T[]> {
  return { keys: reads.flatMap((read) => read.keys), result: (found) => reads.map((read) => read.result(found)) };
}

const NO_TEMPLATE: KeyedRead<() => undefined> = { keys: [], result: () => () => undefined };
const NOT_READ: KeyedRead<undefined> = { keys: [], result: () => undefined };

/**
 * The addresses kept from being sent to, by their contacts' statuses in every
 * audience or the account's suppression list. Which of those it was is not
 * kept: no reply, record or event says it (RECIPIENT_SUPPRESSED).
 */
function suppressionsOf(
  addresses: readonly string[],
  memberships: readonly (readonly { status: ContactStatus }[])[],
  listed: readonly (SuppressionReason | undefined)[],
  suppressWhen: readonly ContactStatus[],
): Set<string> {
  const suppressed = new Set<string>();
  addresses.forEach((address, index) => {
    const reason = listed[index];
    // A person or key put the address there to stop all mail to it, OTP and transactional included.
    if (reason === 'manual') suppressed.add(address);
    const statuses: ContactStatus[] = [...memberships[index]!.map((membership) => membership.status), ...(reason && reason !== 'manual' ? [reason] : [])];
    if (statuses.some((candidate) => suppressWhen.includes(candidate))) suppressed.add(address);
  });
  return suppressed;
}

/**
 * The body of each reader of a delivery. The first render's scope holds no
 * signed link (the built-ins read as placeholders), so its output cannot show
 * one, whatever the template does to the value (a built name, `reverse`,
 * `base64_encode`, …): when it read neither link, that body is every
 * reader's alike, and cc and bcc may ride on it. When it read one, every
 * reader gets a render of its own, with its own links, that goes to nobody
 * else. Reads decide, not spelling (shared/templates/builtins.ts, `trackedBuiltins`).
 */
async function bodiesOf(
  delivery: Delivery,
  template: LoadedTemplate | undefined,
  { principal, now }: DeliveryContext,
): Promise<(reader: string) => Promise<Body>> {
  const render = async (builtins: Record<string, string>) => {
    const { content, variables } = delivery;
    const { subject, html, text } =
      'html' in content
        ? await renderInlineContent(content.html, content.subject, variables, builtins)
        : await renderLoadedTemplate(template!, variables, { ...(content.subject === undefined ? {} : { subject: content.subject }), builtins });
    return { subject, html, text };
  };
  const unlinked = trackedBuiltins(now);
  const readLinks = () => unlinked.reads.unsubscribeUrl || unlinked.reads.preferencesUrl;
  try {
    const shared = await render(unlinked.builtins);
    if (!readLinks()) {
      const body: Body = { ...shared, unsubscribeUrl: undefined, bound: false };
      return async () => body;
    }
  } catch (error) {
    // Up to its first read of a link the render went as any reader's would; past it, only a render with real links tells.
    if (!readLinks()) throw error;
  }
  return async (reader) => {
    const links = await subscriptionLinks(principal.accountId, reader);
    const own = trackedBuiltins(now, links);
    const rendered = await render(own.builtins);
    return { ...rendered, unsubscribeUrl: own.reads.unsubscribeUrl ? links.oneClickUrl : undefined, bound: true };
  };
}

/** One message to `recipient` with its body; it carries no cc or bcc until the send decides. */
function draft(body: Body, recipient: string, emailId: string, suppressed: boolean, now: Date): Draft {
  return { recipient, emailId, trackingId: trackingIdOf(emailId, now), suppressed, ...body, cc: [], bcc: [] };
}

/** SES takes at most 50 addresses per message: one recipient plus every cc and bcc, when they ride along. */
function checkDestinations(cc: readonly string[], bcc: readonly string[]): void {
  const room = SEND_LIMITS.destinationsPerMessage - 1;
  if (cc.length + bcc.length > room) {
    throw new ValidationError(
      'VALIDATION_ERROR',
      `cc and bcc together may hold at most ${room} addresses: each message goes to one recipient plus all of them, and SES takes ${SEND_LIMITS.destinationsPerMessage} per message`,
      cc.length > room ? 'cc' : 'bcc',
    );
  }
}

/** A cc or bcc address, with the id its own message gets if it needs one. */
interface CopyAddress {
  address: string;
  copyOf: 'cc' | 'bcc';
  emailId: string;
}

/**
 * Each distinct cc and bcc address that is not a recipient already (it gets
 * that message), cc first. Ids are made here, before any await, so they grow
 * in cc and bcc order after the recipients'.
 */
function copyAddresses(delivery: Delivery, now: Date): CopyAddress[] {
  const seen = new Set(delivery.recipients);
  const copies: CopyAddress[] = [];
  for (const [copyOf, addresses] of [
    ['cc', delivery.cc],
    ['bcc', delivery.bcc],
  ] as const) {
    for (const address of addresses) {
      if (seen.has(address)) continue;
      seen.add(address);
      copies.push({ address, copyOf, emailId: newId('eml', now.getTime()) });
    }
  }
  return copies;
}

/**
 * One message whatever kept the address back: a sending or test key may learn
 * that an address is suppressed, never whether it unsubscribed, bounced or
 * complained (docs/security.md, "Keys"). Records and replays carry the same.
 */
export const RECIPIENT_SUPPRESSED = {
  code: 'RECIPIENT_SUPPRESSED',
  message: 'The address is suppressed for this account; nothing was sent to it',
} as const;

function leftOut(address: string): LeftOutAddress {
  return { recipient: address, error: RECIPIENT_SUPPRESSED };
}

/** Runs `fn` over `items`, at most `limit` at a time, results in order. */
export async function mapConcurrently<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** `queued`: throttled, and its body goes on the retry queue once its record is stored. */
type Sent = SendOutcome | { status: 'queued'; body: string } | { status: 'error'; cause: unknown };

function outgoingEmail(delivery: Delivery, message: Draft, accountId: string): OutgoingEmail {
  return {
    tags: { accountId, emailId: message.emailId, trackingId: message.trackingId },
    ...(delivery.tracking ? { tracking: delivery.tracking } : {}),
    from: delivery.from,
    to: [message.recipient],
    cc: message.cc,
    bcc: message.bcc,
    replyTo: delivery.replyTo ? [delivery.replyTo] : [],
    subject: message.subject,
    html: message.html,
    text: message.text,
    attachments: delivery.attachments,
    ...(message.unsubscribeUrl ? { unsubscribeUrl: message.unsubscribeUrl } : {}),
  };
}

async function sendOne(transport: MailTransport, email: OutgoingEmail, message: Draft, month: QuotaMonth): Promise<Sent> {
  try {
    const outcome = await transport.send(email);
    if (outcome.status !== 'failed' || outcome.error !== 'SES_THROTTLED') return outcome;
    const body = await queueBodyFor({ accountId: month.accountId, emailId: message.emailId, ...chargedPeriodOf(message, month), email });
    return body === undefined ? outcome : { status: 'queued', body };
  } catch (cause) {
    // One message's unexpected failure must not lose the others' outcomes (or their quota).
    return { status: 'error', cause };
  }
}

/** A test key's message: everything but the hand-off to SES. */
const TEST_SEND: Sent = { status: 'sent', messageId: '' };

function resultOf(message: Draft, sent: Sent | undefined): MessageResult {
  const base = {
    recipient: message.recipient,
    ...(message.copyOf ? { copyOf: message.copyOf } : {}),
    emailId: message.emailId,
    trackingId: message.trackingId,
  };
  if (!sent) return { ...base, status: 'suppressed', error: RECIPIENT_SUPPRESSED };
  if (sent.status === 'sent') return { ...base, status: 'sent' };
  if (sent.status === 'queued') return { ...base, status: 'queued' };
  if (sent.status === 'failed') return { ...base, status: 'failed', error: { code: sent.error, message: sent.message } };
  return { ...base, status: 'failed', error: { code: 'SEND_FAILED', message: 'The message could not be handed to SES; send it again' }, cause: sent.cause };
}

function recordOf(delivery: Delivery, message: Draft, result: MessageResult, sent: Sent | undefined, context: DeliveryContext): EmailRecord {
  return {
    emailId: message.emailId,
    trackingId: message.trackingId,
    type: delivery.type,
    from: formatMailbox(delivery.from),
    to: message.recipient,
    cc: [...message.cc],
    bcc: [...message.bcc],
    ...(delivery.replyTo ? { replyTo: formatMailbox(delivery.replyTo) } : {}),
    subject: message.subject,
    status: result.status,
    ...(result.error ? { error: result.error } : {}),
    ...(sent?.status === 'sent' && sent.messageId ? { sesMessageId: sent.messageId } : {}),
    test: context.principal.env === 'test',
    createdAt: context.now.toISOString(),
  };
}

/**
 * Sends one message per recipient and records each, and the cc and bcc
 * addresses their copies (riding along, or their own messages when the
 * messages carry signed links). A test key does all of it except the SES
 * call and the quota. Refusals of the whole request throw; per-message
 * outcomes come back in `messages`, suppressed cc and bcc in `leftOut`.
 */
export async function deliver(delivery: Delivery, context: DeliveryContext, transport: MailTransport = defaultTransport): Promise<DeliveryReport> {
  const { claim } = delivery;
  const gate = claim && {
    held: claim.held,
    completion: ([outcome]: readonly DeliveryOutcome[]) => (isReport(outcome) ? claim.completion(outcome.messages) : []),
  };
  const [outcome] = await deliverAll([delivery], context, gate, transport);
  if (!isReport(outcome)) throw outcome;
  return outcome;
}

/** A delivery's report, or the error that refused it before anything was charged or sent. */
export type DeliveryOutcome = DeliveryReport | PostlaneError;

export function isReport(outcome: DeliveryOutcome | undefined): outcome is DeliveryReport {
  return outcome !== undefined && !(outcome instanceof PostlaneError);
}

/** `Delivery.claim` for several deliveries: the completion sees every outcome. */
export interface DeliveriesClaim {
  held: Promise<void>;
  completion(outcomes: readonly DeliveryOutcome[]): Record<string, unknown>[];
}

/** A delivery checked and rendered, ready to charge and send. */
interface Prepared {
  delivery: Delivery;
  drafts: Draft[];
  deliverable: Draft[];
  copyDrafts: Draft[];
  leftOut: LeftOutAddress[];
}

/**
 * Several deliveries as one (POST /api/email/batch): one wave of reads for
 * all of them, one quota charge, their messages sent as `deliver` sends each
 * delivery's (DELIVERIES_AT_ONCE deliveries at a time), one release of what
 * was not sent and one batch write of every record and event. A delivery
 * refused by a check of its own (sender, template, rendering, window, quota)
 * is refused alone, its error in its place; anything else throws for all.
 */
export async function deliverAll(
  deliveries: readonly Delivery[],
  context: DeliveryContext,
  claim?: DeliveriesClaim,
  transport: MailTransport = defaultTransport,
): Promise<DeliveryOutcome[]> {
  const { principal, now } = context;
  // Ids are made before any await, so they grow in recipient order, then cc and bcc order.
  const emailIds = deliveries.map((delivery) => delivery.recipients.map(() => newId('eml', now.getTime())));
  const copies = deliveries.map((delivery) => copyAddresses(delivery, now));
  const live = principal.env === 'live';
  const addresses = deliveries.map((delivery, index) => [...delivery.recipients, ...copies[index]!.map((copy) => copy.address)]);
  const [month, { reads, emailsSent }] = await Promise.all([
    quotaMonthFor(principal, now),
    readForSends(deliveries, addresses, principal.accountId, live ? undefined : quotaPeriod(now)),
  ]);
  const outcomes: (Prepared | PostlaneError)[] = await Promise.all(
    deliveries.map((delivery, index) => codedErrorAsOutcome(prepare(delivery, reads[index]!, emailIds[index]!, copies[index]!, context))),
  );
  if (!outcomes.some(isPrepared)) return outcomes as PostlaneError[];

  await claim?.held;
  // One email counts per message to a recipient; cc and bcc copies, riding along or of their own, do not count extra (docs/api.md, "Quota").
  let emailsRemaining = await admitAndReserve(outcomes, live ? month : undefined);
  if (!outcomes.some(isPrepared)) return outcomes as PostlaneError[];
  const sent = new Map<Draft, Sent>();
  const sendAll = async (delivery: Delivery, messages: readonly Draft[]) => {
    const results = await mapConcurrently(messages, sendConcurrency(delivery.attachments, SEND_CONCURRENCY), async (message) => {
      const email = outgoingEmail(delivery, message, principal.accountId);
      // Kept for a test key's message too: the message log shows it, marked test.
      const [outcome] = await Promise.all([
        live ? sendOne(transport, email, message, month) : TEST_SEND,
        keepEmailContent(principal.accountId, message.emailId, email, delivery.secret),
      ]);
      return outcome;
    });
    for (const [index, message] of messages.entries()) sent.set(message, results[index]!);
  };
  const accepted = (message: Draft) => isAccepted(sent.get(message)!);
  const ready = outcomes.filter(isPrepared);
  const copiesSent = new Map<Prepared, Draft[]>();
  await mapConcurrently(ready, DELIVERIES_AT_ONCE, async (prepared) => {
    await sendAll(prepared.delivery, prepared.deliverable);
    // Copies of a message nobody got would be copies of nothing: they leave only once a recipient's message has.
    const copies = prepared.deliverable.some(accepted) ? prepared.copyDrafts : [];
    copiesSent.set(prepared, copies);
    await sendAll(prepared.delivery, copies);
  });
  const unsent = ready.reduce((sum, prepared) => sum + prepared.deliverable.filter((message) => !accepted(message)).length, 0);
  // From here on messages may have left: nothing but the records' own write may fail the request (see UnrecordedDeliveryError).
  if (live && unsent > 0) emailsRemaining = await releaseQuota(month, unsent).catch(keepChargeWhenReleaseFails(principal.accountId, unsent, emailsRemaining));
  emailsRemaining ??= emailsSent === undefined ? await quotaLeft(month) : remaining(month, emailsSent);

  const recorded = ready.flatMap((prepared) => [...prepared.drafts, ...copiesSent.get(prepared)!].map((message) => ({ prepared, message })));
  const messages = recorded.map(({ message }) => resultOf(message, sent.get(message)));
  for (const result of messages) {
    if (result.cause) log.error('SES send failed', { accountId: principal.accountId, emailId: result.emailId, error: result.cause });
  }
  const reports = new Map(ready.map((prepared) => [prepared, { messages: [] as MessageResult[], leftOut: prepared.leftOut, emailsRemaining }]));
  for (const [index, { prepared }] of recorded.entries()) reports.get(prepared)!.messages.push(messages[index]!);
  const answer = () => outcomes.map((outcome) => (isPrepared(outcome) ? reports.get(outcome)! : outcome));
  const records = recorded.map(({ prepared, message }, index) => recordOf(prepared.delivery, message, messages[index]!, sent.get(message), context));
  const retries = recorded.flatMap(({ message }, index): PendingRetry[] => {
    const outcome = sent.get(message);
    return outcome?.status === 'queued'
      ? [{ emailId: message.emailId, facts: emailFactsOfRecord(records[index]!), body: outcome.body, period: chargedPeriodOf(message, month).period }]
      : [];
  });
  try {
    // Their events ride in the records' own batch write: no call of their own on the send path.
    const events = records.flatMap((record) => outcomeEventItems(principal.accountId, record, now.getTime()));
    await putEmailRecords(principal.accountId, records, retentionExpiry(now.getTime()), [...events, ...(claim?.completion(answer()) ?? [])]);
  } catch (error) {
    // Throttled messages are queued only once their records exist: these never were, so they fail, uncharged.
    if (retries.length > 0) {
      for (const report of reports.values()) report.messages = refusedByQueue(report.messages, (result) => result.status === 'queued');
      const charged = retries.filter((retry) => retry.period !== undefined).length;
      if (charged > 0) await releaseQuota(month, charged).catch(keepChargeWhenReleaseFails(principal.accountId, charged, undefined));
    }
    if (messages.some((message) => message.status === 'sent')) throw new UnrecordedDeliveryError(answer(), error);
    throw error;
  }
  if (retries.length > 0) await enqueueRefused([...reports.values()], await enqueueRetries(principal.accountId, retries), month);
  return answer();
}

/**
 * Deliveries in flight at once: each sends its messages up to
 * SEND_CONCURRENCY at a time, so a batch keeps at most about 100 SES calls
 * open, and 100 one-recipient deliveries take about ten round trips.
 */
const DELIVERIES_AT_ONCE = 10;

function isPrepared(outcome: Prepared | PostlaneError): outcome is Prepared {
  return !(outcome instanceof PostlaneError);
}

/** A delivery's own refusal (a coded error) as its outcome; anything else fails them all. */
async function codedErrorAsOutcome<T>(work: Promise<T>): Promise<T | PostlaneError> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof PostlaneError) return error;
    throw error;
  }
}

/** The checks and rendering of one delivery: the sender, then the template, then each message. */
async function prepare(
  delivery: Delivery,
  reads: DeliveryReads,
  emailIds: readonly string[],
  copies: readonly CopyAddress[],
  context: DeliveryContext,
): Promise<Prepared> {
  checkVerifiedSender(reads.domain, delivery.from, 'from', context.principal.domain);
  const bodyOf = await bodiesOf(delivery, reads.template(), context);
  const { suppressed } = reads;
  const drafts = await Promise.all(
    delivery.recipients.map(async (recipient, index) => draft(await bodyOf(recipient), recipient, emailIds[index]!, suppressed.has(recipient), context.now)),
  );
  const deliverable = drafts.filter((message) => !message.suppressed);
  const leftOutCopies = copies.filter((copy) => suppressed.has(copy.address)).map((copy) => leftOut(copy.address));
  const kept = copies.filter((copy) => !suppressed.has(copy.address));
  const copyDrafts = await placeCopies(delivery, bodyOf, drafts, deliverable.length > 0 ? kept : [], suppressed, context.now);
  return { delivery, drafts, deliverable, copyDrafts, leftOut: leftOutCopies };
}

/**
 * Where cc and bcc go. Messages that show signed links get none: each kept
 * address gets a draft of its own, bound to it, returned to be sent once a
 * recipient's has. Otherwise the unsuppressed ones ride on every recipient's
 * message, and must fit in it with the recipient.
 */
async function placeCopies(
  delivery: Delivery,
  bodyOf: (reader: string) => Promise<Body>,
  drafts: Draft[],
  kept: readonly CopyAddress[],
  suppressed: ReadonlySet<string>,
  now: Date,
): Promise<Draft[]> {
  // Variables are the request's: one copy per address is the same whichever recipient's message it copies.
  if (drafts.some((message) => message.bound)) {
    return Promise.all(kept.map(async ({ address, copyOf, emailId }) => ({ ...draft(await bodyOf(address), address, emailId, false, now), copyOf })));
  }
  checkDestinations(delivery.cc, delivery.bcc);
  const riding = { cc: delivery.cc.filter((address) => !suppressed.has(address)), bcc: delivery.bcc.filter((address) => !suppressed.has(address)) };
  for (const message of drafts) Object.assign(message, riding);
  return [];
}

/**
 * The per-recipient windows (`admit`, OTP) and one quota charge for every
 * delivery, side by side: neither reads what the other writes. A delivery
 * refused by a window or the quota becomes its error in `outcomes` and
 * sends nothing; a refusal by a window ranks first, as if it had been
 * checked alone, and gives its charge back. Returns the emails left after
 * a charge (undefined when nothing was charged).
 */
async function admitAndReserve(outcomes: (Prepared | PostlaneError)[], month: QuotaMonth | undefined): Promise<number | undefined> {
  const ready = outcomes.flatMap((outcome, index) => (isPrepared(outcome) ? [{ prepared: outcome, index }] : []));
  const counts = ready.map(({ prepared }) => prepared.deliverable.length);
  const charging = month !== undefined && counts.some((count) => count > 0);
  const [admissions, reservation] = await Promise.all([
    Promise.allSettled(
      ready.map(({ prepared: { delivery, deliverable } }) => delivery.admit && Promise.all(deliverable.map((message) => delivery.admit!(message.recipient)))),
    ),
    charging ? reserveEach(month, counts) : undefined,
  ]);
  let giveBack = 0;
  let unexpected: { error: unknown } | undefined;
  ready.forEach(({ index }, position) => {
    const admission = admissions[position]!;
    const refusedByQuota = reservation?.refused[position];
    if (admission.status === 'rejected') {
      if (!refusedByQuota) giveBack += counts[position]!;
      if (admission.reason instanceof PostlaneError) outcomes[index] = admission.reason;
      else unexpected ??= { error: admission.reason };
    } else if (refusedByQuota) outcomes[index] = refusedByQuota;
  });
  let left = reservation?.left;
  if (giveBack > 0 && month) left = await releaseQuota(month, giveBack).catch(keepChargeWhenReleaseFails(month.accountId, giveBack, left));
  if (unexpected) throw unexpected.error;
  return left;
}

/** The month a message's email was charged to: none for a cc or bcc copy (docs/api.md, "Quota": copies do not count extra). */
function chargedPeriodOf(message: Draft, month: QuotaMonth): { period?: string } {
  return message.copyOf ? {} : { period: month.period };
}

/** SES took it, now or from the retry queue later. */
function isAccepted(outcome: Sent): boolean {
  return outcome.status === 'sent' || outcome.status === 'queued';
}

/**
 * A failed release of unsent emails' charge, once messages may have left: the
 * request must not fail for it (a retry would send again), so the charge stays,
 * never past the quota, and `emailsRemaining` is what the reservation left.
 */
function keepChargeWhenReleaseFails(accountId: string, count: number, reservedRemaining: number | undefined) {
  return (error: unknown): number | undefined => {
    log.error('quota of unsent messages not released; the charge stays', { accountId, count, error });
    return reservedRemaining;
  };
}

/** The results with those `refused` names failed as throttled after all: they never got onto the retry queue. */
function refusedByQueue(messages: readonly MessageResult[], refused: (result: MessageResult) => boolean): MessageResult[] {
  return messages.map((result) => (refused(result) ? { ...result, status: 'failed', error: QUEUE_REFUSED } : result));
}

/** Reports the messages the retry queue refused as throttled after all (enqueueRetries settled their records and quota). */
async function enqueueRefused(reports: readonly DeliveryReport[], refused: ReadonlySet<string>, month: QuotaMonth): Promise<void> {
  if (refused.size === 0) return;
  for (const report of reports) report.messages = refusedByQueue(report.messages, (result) => refused.has(result.emailId));
  // Other messages may have left: a failed read keeps the figure the send already had rather than failing the request.
  const emailsRemaining = await quotaLeft(month).catch(() => reports[0]!.emailsRemaining);
  for (const report of reports) report.emailsRemaining = emailsRemaining;
}

/** Messages left (SES took them) but their records could not be written: the request fails without pretending nothing was sent. */
export class UnrecordedDeliveryError extends Error {
  override readonly name = 'UnrecordedDeliveryError';
  constructor(
    /** Each delivery's outcome, as `deliverAll` would have answered. */
    readonly outcomes: readonly DeliveryOutcome[],
    override readonly cause: unknown,
  ) {
    super('Email sent but not recorded', { cause });
  }

  /** The report of a single delivery (`deliver`): it sent, so it was not refused. */
  get report(): DeliveryReport {
    return this.outcomes.find(isReport)!;
  }
}

/** Response of the OTP and transactional endpoints (docs/api.md, "POST /api/otp/send"); `queued` when SES throttled the message and it waits on the retry queue. */
export type SingleSendResponse = Omit<v.InferOutput<typeof singleSendResultReply>, 'success'>;

/**
 * The error a one-recipient send answers with when its message was not sent;
 * it names the stored record (`emailId`, `trackingId`) so the failure can be looked up.
 */
function singleFailure(result: MessageResult, toField: string): unknown {
  if (result.cause) return result.cause;
  const { code, message } = result.error!;
  const fields = { emailId: result.emailId, trackingId: result.trackingId };
  switch (code) {
    case 'SENDER_NOT_VERIFIED':
      return new PostlaneError(code, message, { field: 'from', fields });
    case 'SES_THROTTLED':
      return new PostlaneError(code, message, { retryAfter: 1, fields });
    case 'SENDING_PAUSED':
      return new PostlaneError(code, message, { fields });
    case 'SEND_FAILED':
      return new Error(message);
    default:
      return new PostlaneError(code, message, { field: toField, fields });
  }
}

/**
 * A one-recipient delivery (OTP, transactional): the response when sent, else
 * the matching error. Its reads run beside the idempotency claim of `gate`,
 * whose completion rides in the records' write when the message was accepted.
 */
export async function deliverOne(
  delivery: Delivery,
  context: SendContext,
  sentMessage: string,
  toField: string,
  gate?: ClaimGate,
): Promise<SingleSendResponse> {
  const responseOf = (result: MessageResult): SingleSendResponse => ({
    message: sentMessage,
    trackingId: result.trackingId,
    emailId: result.emailId,
    queued: result.status === 'queued',
  });
  const accepted = (result: MessageResult | undefined) => result?.status === 'sent' || result?.status === 'queued';
  const claim = gate && {
    held: gate.held,
    completion: ([result]: readonly MessageResult[]) => {
      const item = accepted(result) ? gate.completion(responseOf(result!)) : undefined;
      return item ? [item] : [];
    },
  };
  let report: DeliveryReport;
  try {
    report = await deliver(claim ? { ...delivery, claim } : delivery, context);
  } catch (error) {
    // Sent: an idempotency key must replay this answer, never send again.
    if (error instanceof UnrecordedDeliveryError) throw new EffectCommittedError(responseOf(error.report.messages[0]!), error.cause);
    throw error;
  }
  const [result] = report.messages;
  if (!accepted(result)) throw singleFailure(result!, toField);
  return responseOf(result!);
}

/** Every sender keeps what it hands to SES (broadcasts send on their own engine). */
export { keepEmailContent } from './content.ts';

/** What other areas build on from the store (its reads, and the parts their transactions write): through this service, never the store itself. */
export {
  getSuppression,
  getSuppressionRecord,
  getSuppressions,
  newManualPut,
  newUnsubscribePut,
  putSuppression,
  querySuppressions,
  removeUnsubscribe,
  suppressionDelete,
  type SuppressionReason,
  type SuppressionRecord,
  type SuppressionSource,
} from './suppression-store.ts';
