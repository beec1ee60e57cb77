/**
 * Broadcasts (docs/broadcasts.md):
 * the definition and its lifecycle. What sending does is the engine's
 * (broadcast-engine.ts); this module starts, pauses, resumes and stops it.
 *
 * draft ⇄ scheduled → sending ⇄ paused → sent; any but sent → cancelled.
 */
import type * as v from 'valibot';
import { getAudienceCounters, getAudienceRecord as readAudience } from '#shared/audiences/service.ts';
import { readBroadcastStats } from './stats-store.ts';
import {
  cancelBroadcastIf,
  deleteBroadcast as removeBroadcast,
  EDITABLE_STATUSES,
  getBroadcast as readBroadcast,
  scheduledStart,
  insertBroadcast,
  listBroadcasts as readBroadcasts,
  unfinishedBatches,
  updateBroadcast as writeBroadcast,
  updateBroadcastIf,
  type BroadcastChanges,
  type BroadcastRecord,
} from './store.ts';
import { contactsInStatusAfter, countContactsInStatus, FILTER_SCAN_LIMIT, type ContactRecord } from '#shared/contacts/service.ts';
import { broadcastQueue, type BroadcastStep, type StartStep } from './queue.ts';
import { broadcastScheduler } from './scheduler.ts';
import { builtinVariables } from '#shared/templates/builtins.ts';
import { NotFoundError, PostlaneError, ValidationError, notFound } from '#shared/platform/errors.ts';
import { isId, newId } from '#shared/platform/ids.ts';
import { pagination, type ListPage } from '#shared/platform/schema/common.ts';
import {
  BROADCAST_LIMITS,
  type broadcastSchema,
  type BroadcastStatus,
  type CreateBroadcastInput,
  type ListBroadcastsQuery,
  type Segment,
  type segmentCountSchema,
  type broadcastStatsSchema,
  type UpdateBroadcastInput,
} from './schema.ts';
import type { Principal } from '#shared/accounts/api-keys.ts';
import type { broadcastTestReply } from './schema.ts';
import { findById } from '#shared/platform/lookup.ts';
import { deliver, SUPPRESSED_FOR_EMAIL, type SendContext } from '#shared/sending/service.ts';
import { ensureVerifiedSender, parseMailboxField } from '#shared/sending/sender.ts';
import { loadTemplate, renderInlineContent, renderLoadedTemplate } from '#shared/templates/service.ts';
import { orNull, pick } from '#shared/platform/views.ts';

export type Broadcast = v.InferOutput<typeof broadcastSchema>;

export function toBroadcast(record: BroadcastRecord): Broadcast {
  const { recipients, sent, suppressed, failed } = record.counts;
  return {
    id: record.broadcastId,
    ...pick(record, 'name', 'audienceId', 'from', 'subject', 'variables', 'status', 'createdAt', 'updatedAt'),
    ...orNull(record, 'segment', 'replyTo', 'templateId', 'content', 'pausedReason', 'scheduledAt', 'startedAt', 'completedAt'),
    counts: { recipients, sent, suppressed, failed, remaining: Math.max(0, recipients - sent - suppressed - failed) },
    tracking: { opens: record.tracking?.opens ?? false, clicks: record.tracking?.clicks ?? false },
  };
}

const notEditable = (status: BroadcastStatus) =>
  new PostlaneError('BROADCAST_NOT_EDITABLE', `The broadcast is ${status}; only a draft or scheduled broadcast can be changed`);

async function findBroadcast(accountId: string, broadcastId: string): Promise<BroadcastRecord> {
  return findById('bro', broadcastId, () => readBroadcast(accountId, broadcastId), notFound.broadcast);
}

/** The audience a body names: AUDIENCE_NOT_FOUND on `audienceId` when the account has none of that id. */
async function ensureAudience(accountId: string, audienceId: string): Promise<void> {
  await findById(
    'aud',
    audienceId,
    () => readAudience(accountId, audienceId),
    () => new NotFoundError('AUDIENCE_NOT_FOUND', 'Audience not found', { field: 'audienceId' }),
  );
}

/**
 * What a send would refuse, refused now: the sender (a verified domain of the
 * account, as every send), the template, and content that does not render.
 */
async function checkSendable(
  accountId: string,
  fields: Pick<BroadcastRecord, 'from' | 'subject' | 'templateId' | 'content' | 'variables' | 'replyTo'>,
  now: Date,
) {
  const from = parseMailboxField(fields.from, 'from');
  if (fields.replyTo !== undefined) parseMailboxField(fields.replyTo, 'replyTo');
  await ensureVerifiedSender(accountId, from);
  const builtins = builtinVariables(now);
  if (fields.templateId !== undefined)
    await renderLoadedTemplate(await loadTemplate(accountId, fields.templateId), fields.variables, { subject: fields.subject, builtins });
  else await renderInlineContent(fields.content!, fields.subject, fields.variables, builtins);
}

/** `scheduledAt` as a date, at most BROADCAST_LIMITS.scheduleDays ahead; VALIDATION_ERROR on the field otherwise. */
function scheduleTime(scheduledAt: string, now: Date): Date {
  const at = new Date(scheduledAt);
  if (at.getTime() > now.getTime() + BROADCAST_LIMITS.scheduleDays * 86_400_000) {
    throw new ValidationError('VALIDATION_ERROR', `scheduledAt must be at most ${BROADCAST_LIMITS.scheduleDays} days ahead`, 'scheduledAt');
  }
  return at;
}

export async function createBroadcast(accountId: string, input: CreateBroadcastInput, now: Date): Promise<Broadcast> {
  const at = now.toISOString();
  const record: BroadcastRecord = {
    broadcastId: newId('bro', now.getTime()),
    name: input.name || input.subject,
    audienceId: input.audienceId,
    ...(input.segment ? { segment: input.segment } : {}),
    from: input.from,
    ...(input.replyTo === undefined ? {} : { replyTo: input.replyTo }),
    subject: input.subject,
    ...(input.templateId === undefined ? {} : { templateId: input.templateId }),
    ...(input.content === undefined ? {} : { content: input.content }),
    variables: input.variables,
    status: 'draft',
    ...(input.scheduledAt === undefined ? {} : { scheduledAt: scheduleTime(input.scheduledAt, now).toISOString() }),
    ...(input.tracking ? { tracking: input.tracking } : {}),
    test: false,
    counts: { recipients: 0, sent: 0, suppressed: 0, failed: 0 },
    batchesDone: 0,
    createdAt: at,
    updatedAt: at,
  };
  await ensureAudience(accountId, record.audienceId);
  await checkSendable(accountId, record, now);
  await insertBroadcast(accountId, record);
  return toBroadcast(record);
}

export async function getBroadcast(accountId: string, broadcastId: string): Promise<Broadcast> {
  return toBroadcast(await findBroadcast(accountId, broadcastId));
}

/** Newest first, of one `status` when given. */
export async function listBroadcasts(accountId: string, { page, limit, status }: ListBroadcastsQuery): Promise<ListPage<'broadcasts', Broadcast>> {
  const found = await readBroadcasts(accountId, status, (page - 1) * limit, limit);
  return {
    broadcasts: found.broadcasts.map(toBroadcast),
    pagination: pagination(found.matched, page, limit, found.truncated),
  };
}

/** The stored fields a PATCH leads to: content and templateId replace each other. */
function changesOf(input: UpdateBroadcastInput, now: Date): BroadcastChanges {
  return {
    ...input,
    ...(input.content !== undefined ? { templateId: null } : {}),
    ...(input.templateId !== undefined ? { content: null } : {}),
    ...(typeof input.scheduledAt === 'string' ? { scheduledAt: scheduleTime(input.scheduledAt, now).toISOString() } : {}),
  };
}

export async function updateBroadcast(accountId: string, broadcastId: string, input: UpdateBroadcastInput, now: Date): Promise<Broadcast> {
  const current = await findBroadcast(accountId, broadcastId);
  if (!EDITABLE_STATUSES.includes(current.status)) throw notEditable(current.status);
  const changes = changesOf(input, now);
  const merged = { ...current, ...changes } as Record<string, unknown>;
  for (const [field, value] of Object.entries(changes)) if (value === null) delete merged[field];
  if (changes.audienceId) await ensureAudience(accountId, changes.audienceId);
  await checkSendable(accountId, merged as unknown as BroadcastRecord, now);
  const updated = await writeBroadcast(accountId, broadcastId, changes, now);
  if (!updated) throw notEditable((await findBroadcast(accountId, broadcastId)).status);
  // A scheduled broadcast whose time moved keeps one schedule, at the new time.
  if (updated.status === 'scheduled' && input.scheduledAt !== undefined) return toBroadcast(await reschedule(accountId, updated, now));
  return toBroadcast(updated);
}

export async function deleteBroadcast(accountId: string, broadcastId: string): Promise<void> {
  const current = await findBroadcast(accountId, broadcastId);
  if (!(await removeBroadcast(accountId, broadcastId))) throw notEditable((await findBroadcast(accountId, broadcastId)).status);
  if (current.status === 'scheduled') await broadcastScheduler().unschedule(accountId, broadcastId);
}

/** The first step of sending: plan from the start of the audience. */
export function firstStep(accountId: string, broadcastId: string): BroadcastStep {
  return { kind: 'plan', accountId, broadcastId, batch: 0, recipients: 0 };
}

/** A scheduled broadcast's schedule at its (new) time; one without a time any more goes back to draft. Answers the broadcast as it is then. */
async function reschedule(accountId: string, record: BroadcastRecord, now: Date): Promise<BroadcastRecord> {
  if (record.scheduledAt !== undefined && new Date(record.scheduledAt) > now) {
    await broadcastScheduler().schedule(accountId, record.broadcastId, new Date(record.scheduledAt));
    return record;
  }
  await broadcastScheduler().unschedule(accountId, record.broadcastId);
  return (await updateBroadcastIf(accountId, record.broadcastId, ['scheduled'], { status: 'draft', updatedAt: now.toISOString() })) ?? record;
}

/**
 * POST /api/broadcasts/:id/send: a draft or scheduled broadcast starts now,
 * or is scheduled when `scheduledAt` (given or stored) is ahead; a paused one
 * resumes where it stopped. The key that sends, schedules or resumes it fixes
 * its mode from then on: with a test key it runs the whole flow (what is left
 * of it, for a resume) without SES and without quota, whichever key made it.
 */
export async function sendBroadcast(
  principal: Pick<Principal, 'accountId' | 'env'> & Partial<Pick<Principal, 'domain'>>,
  broadcastId: string,
  input: { scheduledAt?: string | undefined },
  now: Date,
): Promise<Broadcast> {
  const { accountId } = principal;
  const test = principal.env === 'test';
  const current = await findBroadcast(accountId, broadcastId);
  if (current.status === 'paused') return toBroadcast(await resume(accountId, current, test, now));
  if (!EDITABLE_STATUSES.includes(current.status)) throw notEditable(current.status);
  const scheduledAt = input.scheduledAt ?? current.scheduledAt;
  const at = scheduledAt === undefined ? undefined : scheduleTime(scheduledAt, now);
  await ensureVerifiedSender(accountId, parseMailboxField(current.from, 'from'), 'from', principal.domain);
  const stamp = now.toISOString();
  if (at && at > now) {
    // The schedule's start step carries no key: the mode is stored now, and the start keeps it.
    const scheduled = await updateBroadcastIf(accountId, broadcastId, EDITABLE_STATUSES, {
      status: 'scheduled',
      scheduledAt: at.toISOString(),
      test,
      updatedAt: stamp,
    });
    if (!scheduled) throw notEditable((await findBroadcast(accountId, broadcastId)).status);
    await broadcastScheduler().schedule(accountId, broadcastId, at);
    return toBroadcast(scheduled);
  }
  const started = await startBroadcast(accountId, broadcastId, now, { test });
  if (!started) throw notEditable((await findBroadcast(accountId, broadcastId)).status);
  if (current.status === 'scheduled') await broadcastScheduler().unschedule(accountId, broadcastId);
  return toBroadcast(started);
}

/**
 * Draft or scheduled → sending, and the planner's first step queued; a
 * broadcast no longer draft or scheduled (cancelled, already started) is left alone.
 */
export async function startBroadcast(accountId: string, broadcastId: string, now: Date, flags: { test?: boolean } = {}): Promise<BroadcastRecord | undefined> {
  return startIf(accountId, broadcastId, now, EDITABLE_STATUSES, {}, flags);
}

/**
 * A schedule's start step: scheduled → sending, with the test flag the send
 * stored, only while the broadcast is still scheduled for the time the step
 * was made for. A step that comes after the broadcast moved on (sent,
 * cancelled, deleted, turned back into a draft, or scheduled for another time,
 * whose own schedule starts it) changes nothing: a dead letter replayed days
 * later, or a step SQS held back, never sends what its client stopped or moved.
 */
export function startScheduledBroadcast(step: StartStep, now: Date): Promise<BroadcastRecord | undefined> {
  const { from, where } = scheduledStart(step.scheduledAt);
  return startIf(step.accountId, step.broadcastId, now, from, where);
}

async function startIf(
  accountId: string,
  broadcastId: string,
  now: Date,
  from: readonly BroadcastStatus[],
  where: Record<string, string>,
  flags: { test?: boolean } = {},
): Promise<BroadcastRecord | undefined> {
  const set = { status: 'sending', startedAt: now.toISOString(), updatedAt: now.toISOString(), ...(flags.test === undefined ? {} : { test: flags.test }) };
  const started = await updateBroadcastIf(accountId, broadcastId, from, set, [], where);
  if (started) await broadcastQueue().enqueue([firstStep(accountId, broadcastId)]);
  return started;
}

/**
 * Paused → sending, in the mode of the key that resumes it: the batches not
 * finished go on the queue again (their records keep anyone already sent from
 * a second copy). The planner went on while it was paused (a paused broadcast
 * is still planned to its end, its batches left for this), so those are all
 * the batches there are, or the planner queues the rest itself once it reads
 * `sending`. The batch that paused it is among them, so the last to finish
 * completes the broadcast.
 */
async function resume(accountId: string, current: BroadcastRecord, test: boolean, now: Date): Promise<BroadcastRecord> {
  const resumed = await updateBroadcastIf(accountId, current.broadcastId, ['paused'], { status: 'sending', test, updatedAt: now.toISOString() }, [
    'pausedReason',
  ]);
  if (!resumed) throw notEditable((await findBroadcast(accountId, current.broadcastId)).status);
  const batches = await unfinishedBatches(accountId, current.broadcastId);
  await broadcastQueue().enqueue(batches.map((batch) => ({ kind: 'batch', accountId, broadcastId: current.broadcastId, batch })));
  return resumed;
}

/**
 * POST /api/broadcasts/:id/cancel: what was sent stays sent, nothing more goes
 * out. Batches check the status when they start and the cancel's marker
 * before each group of messages, so once this answers, at most the group a
 * sender has already handed to SES follows.
 */
export async function cancelBroadcast(accountId: string, broadcastId: string, now: Date): Promise<Broadcast> {
  const current = await findBroadcast(accountId, broadcastId);
  const cancelled = await cancelBroadcastIf(accountId, broadcastId, ['draft', 'scheduled', 'sending', 'paused'], now);
  if (!cancelled)
    throw new PostlaneError(
      'BROADCAST_NOT_EDITABLE',
      `The broadcast is ${(await findBroadcast(accountId, broadcastId)).status}; it can no longer be cancelled`,
    );
  if (current.status === 'scheduled') await broadcastScheduler().unschedule(accountId, broadcastId);
  return toBroadcast(cancelled);
}

// Segments and personalisation, shared with the engine.

/** Whether a contact is in the segment: every one of `tags`, at least one of `anyTags`, each `customFields` value equal. */
export function inSegment(contact: Pick<ContactRecord, 'tags' | 'customFields'>, segment: Segment | undefined): boolean {
  if (!segment) return true;
  const tags = new Set(contact.tags);
  if (segment.tags && !segment.tags.every((tag) => tags.has(tag))) return false;
  if (segment.anyTags && segment.anyTags.length > 0 && !segment.anyTags.some((tag) => tags.has(tag))) return false;
  return Object.entries(segment.customFields ?? {}).every(([key, value]) => contact.customFields[key] === value);
}

/** A message's variables: the broadcast's, overridden by the contact's address, names and custom fields. */
export function contactVariables(broadcast: Pick<BroadcastRecord, 'variables'>, contact: ContactRecord | undefined): Record<string, unknown> {
  if (!contact) return broadcast.variables;
  return {
    ...broadcast.variables,
    email: contact.email,
    ...(contact.firstName === undefined ? {} : { firstName: contact.firstName }),
    ...(contact.lastName === undefined ? {} : { lastName: contact.lastName }),
    ...contact.customFields,
  };
}

/** Contacts read per page while looking for the first of the segment. */
const SEGMENT_PAGE = 100;

/** The first subscribed contact of the audience in the segment, if any (the test send's data). */
async function firstInSegment(accountId: string, broadcast: BroadcastRecord): Promise<ContactRecord | undefined> {
  let after: string | undefined;
  do {
    const page = await contactsInStatusAfter(accountId, broadcast.audienceId, 'subscribed', after, SEGMENT_PAGE);
    const found = page.contacts.find((contact) => inSegment(contact, broadcast.segment));
    if (found) return found;
    after = page.next;
  } while (after !== undefined);
  return undefined;
}

export type BroadcastTestResult = Omit<v.InferOutput<typeof broadcastTestReply>, 'success'>;

/**
 * POST /api/broadcasts/:id/test: one copy to each address, subject prefixed
 * `[Test] `, with the first matching contact's data (or the broadcast's
 * variables alone). A send like any other: sender checked, quota charged,
 * suppressed addresses left out, a record each.
 */
export async function testBroadcast(broadcastId: string, to: readonly string[], context: SendContext): Promise<BroadcastTestResult> {
  const { accountId } = context.principal;
  const broadcast = await findBroadcast(accountId, broadcastId);
  const contact = await firstInSegment(accountId, broadcast);
  const subject = `[Test] ${broadcast.subject}`;
  const report = await deliver(
    {
      type: 'broadcast',
      from: parseMailboxField(broadcast.from, 'from'),
      recipients: [...new Set(to)],
      cc: [],
      bcc: [],
      replyTo: broadcast.replyTo === undefined ? undefined : parseMailboxField(broadcast.replyTo, 'replyTo'),
      content: broadcast.templateId !== undefined ? { templateId: broadcast.templateId, subject } : { html: broadcast.content!, subject },
      variables: contactVariables(broadcast, contact),
      attachments: [],
      suppressWhen: SUPPRESSED_FOR_EMAIL,
    },
    context,
  );
  const sent = report.messages.filter((message) => message.status === 'sent' || message.status === 'queued');
  const failed = report.messages.filter((message) => !sent.includes(message));
  return {
    message: `Test sent to ${sent.length} of ${report.messages.length} address${report.messages.length === 1 ? '' : 'es'}`,
    sent: sent.map(({ recipient, emailId }) => ({ recipient, emailId })),
    failed: failed.map(({ recipient, error }) => ({ recipient, error: error!.code, message: error!.message })),
  };
}

export type SegmentCount = v.InferOutput<typeof segmentCountSchema>;

/**
 * POST /api/audiences/:id/segment-count: how many subscribed contacts of the
 * audience a broadcast with this segment would reach, before sending.
 * Without a segment, the audience's counters (one read). With one, a Query of
 * the audience's subscribed contacts filtered by it, examining at most
 * FILTER_SCAN_LIMIT: beyond that the answer is an estimate (`exact: false`),
 * the share matched among those examined times the subscribed total. The
 * suppression list is applied when sending starts (`counts.suppressed`).
 */
export async function countSegment(accountId: string, audienceId: string, segment: Segment | null | undefined): Promise<SegmentCount> {
  // Side by side: the counters of an audience that is not the caller's read as none, and the 404 is answered anyway.
  const [, counters] = await Promise.all([
    findById('aud', audienceId, () => readAudience(accountId, audienceId), notFound.audience),
    isId('aud', audienceId) ? getAudienceCounters(accountId, audienceId) : undefined,
  ]);
  const subscribed = counters?.byStatus.subscribed ?? 0;
  const filter = { tags: segment?.tags ?? [], anyTags: segment?.anyTags ?? [], customFields: segment?.customFields ?? {} };
  if (filter.tags.length + filter.anyTags.length + Object.keys(filter.customFields).length === 0) {
    return { audienceId, recipients: subscribed, exact: true, subscribed };
  }
  const found = await countContactsInStatus(accountId, audienceId, 'subscribed', filter, FILTER_SCAN_LIMIT);
  if (found.complete) return { audienceId, recipients: found.matched, exact: true, subscribed };
  const estimate = Math.round((found.matched / found.examined) * subscribed);
  return { audienceId, recipients: Math.max(found.matched, estimate), exact: false, subscribed };
}

export type BroadcastStats = v.InferOutput<typeof broadcastStatsSchema>;

/** GET /api/broadcasts/:id/stats: its progress counters and the results its messages' events added (shared/broadcasts/stats-store.ts). */
export async function getBroadcastStats(accountId: string, broadcastId: string): Promise<BroadcastStats> {
  // Side by side: the results of a broadcast that is not the caller's are a Query of the caller's own partition, empty, and the 404 is answered anyway.
  const [broadcast, results] = await Promise.all([
    findBroadcast(accountId, broadcastId),
    isId('bro', broadcastId) ? readBroadcastStats(accountId, broadcastId) : undefined,
  ]);
  return { broadcastId, recipients: broadcast.counts.recipients, sent: broadcast.counts.sent, ...results! };
}

/** What other areas build on from the store (its reads, and the parts their transactions write): through this service, never the store itself. */
export { awaitsStart, getBroadcast as getBroadcastRecord } from './store.ts';

/** What other areas' changes add to a broadcast's results, in their own transactions. */
export { broadcastStatsItems, countBroadcastUnsubscribe } from './stats-store.ts';
