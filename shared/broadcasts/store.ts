/**
 * Broadcasts: one item per broadcast (definition, status, progress counters)
 * under the account's `BRO` partition, newest last by id, and the engine's
 * batches under the broadcast's own partition. A batch is the snapshot of up
 * to BROADCAST_BATCH_SIZE recipients taken when sending starts; the counters
 * move by atomic ADD once per batch, never per message (docs/broadcasts.md).
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import {
  db,
  deleteIf,
  firstConditionFailed,
  isConditionFailure,
  putNew,
  queryAll,
  queryPage,
  tableName,
  transactWrite,
  type TransactItems,
  updateIf,
  updateReturning,
} from '#shared/platform/dynamodb/client.ts';
import { accountScoped } from '#shared/platform/dynamodb/partition.ts';
import type { BroadcastStatus, Segment } from './schema.ts';
import type { Tracking } from '#shared/sending/tracking.ts';

export interface BroadcastCounters {
  recipients: number;
  sent: number;
  suppressed: number;
  failed: number;
}

export interface BroadcastRecord {
  broadcastId: string;
  name: string;
  audienceId: string;
  segment?: Segment;
  from: string;
  replyTo?: string;
  subject: string;
  templateId?: string;
  content?: string;
  variables: Record<string, unknown>;
  status: BroadcastStatus;
  pausedReason?: string;
  scheduledAt?: string;
  /** Opens and clicks its messages track (none when absent). */
  tracking?: Tracking;
  startedAt?: string;
  completedAt?: string;
  /** Whether it was started with a test key: the engine then sends nothing to SES and charges no quota. */
  test: boolean;
  counts: BroadcastCounters;
  /** Batches the planner wrote, and how many the workers finished; `sent` once they meet. */
  batches?: number;
  batchesDone: number;
  createdAt: string;
  updatedAt: string;
}

/** The fields a PATCH may change; null removes an optional one. */
export type BroadcastChanges = Partial<{
  [K in 'name' | 'audienceId' | 'segment' | 'from' | 'replyTo' | 'subject' | 'templateId' | 'content' | 'variables' | 'scheduledAt' | 'tracking']:
    | BroadcastRecord[K]
    | null;
}>;

/** Recipients per batch: one SQS message, one quota reservation, one counter update. */
export const BROADCAST_BATCH_SIZE = 50;

/** Most broadcasts a filtered list examines; past it the total is a lower bound. */
export const BROADCAST_SCAN_LIMIT = 10_000;

export const EDITABLE_STATUSES: readonly BroadcastStatus[] = ['draft', 'scheduled'];

/**
 * What a schedule's start step must still find to start its broadcast:
 * `scheduled`, for the time the step carries (a step of a schedule made before
 * steps carried it: the status alone). The start writes on it; a replay reads it.
 */
export function scheduledStart(scheduledAt: string | undefined): { from: readonly BroadcastStatus[]; where: Record<string, string> } {
  return { from: ['scheduled'], where: scheduledAt === undefined ? {} : { scheduledAt } };
}

/** Whether the broadcast, as `record` has it, is still what a start step for `scheduledAt` starts (`scheduledStart`). */
export function awaitsStart(record: BroadcastRecord | undefined, scheduledAt: string | undefined): boolean {
  const { from, where } = scheduledStart(scheduledAt);
  return (
    record !== undefined && from.includes(record.status) && Object.entries(where).every(([field, value]) => record[field as keyof BroadcastRecord] === value)
  );
}

const broadcastKey = (accountId: string, broadcastId: string) => ({ pk: accountScoped(accountId, 'BRO'), sk: broadcastId });
const batchKey = (accountId: string, broadcastId: string, batch: number) => ({
  pk: accountScoped(accountId, 'BRO', broadcastId),
  sk: `BAT#${String(batch).padStart(8, '0')}`,
});

/** Beside its batch, small so that renewing it costs one write unit (docs/broadcasts.md, "Costs"). */
const leaseKey = (accountId: string, broadcastId: string, batch: number) => ({
  ...batchKey(accountId, broadcastId, batch),
  sk: `LSE#${String(batch).padStart(8, '0')}`,
});

/** Written with a cancel, beside the broadcast's batches: what senders check between groups (`isCancelled`). */
const cancelMarkerKey = (accountId: string, broadcastId: string) => ({ ...batchKey(accountId, broadcastId, 0), sk: 'CANCELLED' });

const COUNTER_NAMES = ['recipients', 'sent', 'suppressed', 'failed'] as const;

function toRecord(item: Record<string, unknown>): BroadcastRecord {
  const optional = <K extends keyof BroadcastRecord>(key: K) => (item[key] === undefined || item[key] === null ? {} : { [key]: item[key] });
  return {
    broadcastId: item.broadcastId as string,
    name: item.name as string,
    audienceId: item.audienceId as string,
    ...optional('segment'),
    from: item.from as string,
    ...optional('replyTo'),
    subject: item.subject as string,
    ...optional('templateId'),
    ...optional('content'),
    variables: (item.variables ?? {}) as Record<string, unknown>,
    status: item.status as BroadcastStatus,
    ...optional('pausedReason'),
    ...optional('scheduledAt'),
    ...optional('tracking'),
    ...optional('startedAt'),
    ...optional('completedAt'),
    test: item.test === true,
    counts: Object.fromEntries(COUNTER_NAMES.map((name) => [name, Number(item[name] ?? 0)])) as unknown as BroadcastCounters,
    ...(item.batches === undefined ? {} : { batches: Number(item.batches) }),
    batchesDone: Number(item.batchesDone ?? 0),
    createdAt: item.createdAt as string,
    updatedAt: item.updatedAt as string,
  } as BroadcastRecord;
}

function toItem(accountId: string, record: BroadcastRecord): Record<string, unknown> {
  const { counts, ...rest } = record;
  return { ...broadcastKey(accountId, record.broadcastId), entity: 'broadcast', ...rest, ...counts };
}

export async function insertBroadcast(accountId: string, record: BroadcastRecord): Promise<void> {
  await db.send(new PutCommand({ TableName: tableName, Item: toItem(accountId, record), ConditionExpression: 'attribute_not_exists(pk)' }));
}

export async function getBroadcast(accountId: string, broadcastId: string): Promise<BroadcastRecord | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: broadcastKey(accountId, broadcastId), ConsistentRead: true }));
  return Item ? toRecord(Item) : undefined;
}

/** Newest first, optionally of one status; every match up to BROADCAST_SCAN_LIMIT is counted for the total. */
export async function listBroadcasts(
  accountId: string,
  status: BroadcastStatus | undefined,
  offset: number,
  limit: number,
): Promise<{ broadcasts: BroadcastRecord[]; matched: number; truncated: boolean }> {
  const page = await queryPage(
    {
      KeyConditionExpression: 'pk = :pk',
      // A filter either way, so the total is counted while reading (there is no per-account broadcast counter).
      FilterExpression: status === undefined ? 'attribute_exists(#status)' : '#status = :status',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':pk': broadcastKey(accountId, '').pk, ...(status === undefined ? {} : { ':status': status }) },
      ScanIndexForward: false,
    },
    offset,
    limit,
    BROADCAST_SCAN_LIMIT,
  );
  return { broadcasts: page.items.map(toRecord), matched: page.matched, truncated: page.truncated };
}

/** `:s0, :s1` and their values, for `#status IN (...)`. */
function statusValues(statuses: readonly BroadcastStatus[]): { list: string; values: Record<string, string> } {
  const values = Object.fromEntries(statuses.map((status, index) => [`:s${index}`, status]));
  return { list: Object.keys(values).join(', '), values };
}

/**
 * The UpdateItem that writes `set` (and removes `remove`) while the
 * broadcast's status is one of `from` and each field of `where` holds its
 * value, as `updateBroadcastIf` and the cancel's transaction send it.
 */
function statusUpdate(
  accountId: string,
  broadcastId: string,
  from: readonly BroadcastStatus[],
  set: Record<string, unknown>,
  remove: readonly string[] = [],
  where: Record<string, unknown> = {},
) {
  const { list, values } = statusValues(from);
  const setEntries = Object.entries(set).filter(([, value]) => value !== undefined);
  const whereEntries = Object.entries(where);
  const names = Object.fromEntries(
    [...setEntries.map(([field]) => field), ...remove, ...whereEntries.map(([field]) => field), 'status'].map((field) => [`#${field}`, field]),
  );
  const clauses = [
    ...(setEntries.length ? [`SET ${setEntries.map(([field]) => `#${field} = :v_${field}`).join(', ')}`] : []),
    ...(remove.length ? [`REMOVE ${remove.map((field) => `#${field}`).join(', ')}`] : []),
  ];
  return {
    Key: broadcastKey(accountId, broadcastId),
    UpdateExpression: clauses.join(' '),
    ConditionExpression: [`attribute_exists(pk) AND #status IN (${list})`, ...whereEntries.map(([field]) => `#${field} = :w_${field}`)].join(' AND '),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: {
      ...values,
      ...Object.fromEntries(setEntries.map(([field, value]) => [`:v_${field}`, value])),
      ...Object.fromEntries(whereEntries.map(([field, value]) => [`:w_${field}`, value])),
    },
  };
}

/**
 * Writes `set` (and removes `remove`) while the broadcast's status is one of
 * `from` and each field of `where` holds its value: the broadcast as stored
 * afterwards, undefined when it is absent or in another state. Every status
 * change goes through here (or, for a cancel, `cancelBroadcastIf`), so two
 * racing changes (a cancel and the planner, a send and a PATCH) never both apply.
 */
export async function updateBroadcastIf(
  accountId: string,
  broadcastId: string,
  from: readonly BroadcastStatus[],
  set: Record<string, unknown>,
  remove: readonly string[] = [],
  where: Record<string, unknown> = {},
): Promise<BroadcastRecord | undefined> {
  const item = await updateReturning(statusUpdate(accountId, broadcastId, from, set, remove, where));
  return item ? toRecord(item) : undefined;
}

/**
 * Cancels the broadcast while its status is one of `from`, and puts the
 * small marker that senders read between groups of messages (`isCancelled`),
 * in one transaction: once the cancel is answered, every sender sees it
 * before its next group. The broadcast as stored afterwards; undefined when
 * it is absent or in another status.
 */
export async function cancelBroadcastIf(
  accountId: string,
  broadcastId: string,
  from: readonly BroadcastStatus[],
  now: Date,
): Promise<BroadcastRecord | undefined> {
  const at = now.toISOString();
  try {
    await transactWrite([
      { Update: { TableName: tableName, ...statusUpdate(accountId, broadcastId, from, { status: 'cancelled', updatedAt: at }) } },
      { Put: { TableName: tableName, Item: { ...cancelMarkerKey(accountId, broadcastId), entity: 'broadcastCancel', cancelledAt: at } } },
    ]);
  } catch (error) {
    if (firstConditionFailed(error)) return undefined;
    throw error;
  }
  return getBroadcast(accountId, broadcastId);
}

/**
 * Whether the broadcast was cancelled, as a sender checks before each group
 * of messages. The marker, not the broadcast item: a read is billed by the
 * whole item's size whatever it projects, and the broadcast item holds the
 * content (a 40 KB newsletter: 10 read units a check), while the marker
 * costs one (a consistent read of a small or missing item): 0.1 read units
 * per message at one check per 10.
 */
export async function isCancelled(accountId: string, broadcastId: string): Promise<boolean> {
  const { Item } = await db.send(
    new GetCommand({ TableName: tableName, Key: cancelMarkerKey(accountId, broadcastId), ConsistentRead: true, ProjectionExpression: 'pk' }),
  );
  return Item !== undefined;
}

/** PATCH: the given fields set, nulls removed, while editable. */
export function updateBroadcast(accountId: string, broadcastId: string, changes: BroadcastChanges, now: Date): Promise<BroadcastRecord | undefined> {
  const entries = Object.entries(changes).filter(([, value]) => value !== undefined);
  return updateBroadcastIf(
    accountId,
    broadcastId,
    EDITABLE_STATUSES,
    { ...Object.fromEntries(entries.filter(([, value]) => value !== null)), updatedAt: now.toISOString() },
    entries.filter(([, value]) => value === null).map(([field]) => field),
  );
}

/** Removes the broadcast while editable; false when it is absent or no longer editable. */
export function deleteBroadcast(accountId: string, broadcastId: string): Promise<boolean> {
  const { list, values } = statusValues(EDITABLE_STATUSES);
  return deleteIf({
    Key: broadcastKey(accountId, broadcastId),
    ConditionExpression: `attribute_exists(pk) AND #status IN (${list})`,
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: values,
  });
}

// The engine's batches.

/** What a batch adds to the broadcast's counters. */
export type BatchOutcome = Omit<BroadcastCounters, 'recipients'>;

export interface BroadcastBatch {
  batch: number;
  contactIds: string[];
  done: boolean;
  /**
   * What attempts that stopped short (the quota ran out, or a cancel) have
   * added to the broadcast's counters already: the batch's finish adds only
   * the rest.
   */
  counted: BatchOutcome;
}

/** What one planner step made of its page of the audience: the steps that follow from it. */
export interface PlannedPage {
  /** Batches written, numbered on from the step's first. */
  batches: number;
  recipients: number;
  /** The contact the next page starts after; none on the last page. */
  next?: string;
}

const pageKey = (accountId: string, broadcastId: string, after: string | undefined) => ({
  ...batchKey(accountId, broadcastId, 0),
  // `after` names the page: an empty page numbers no batch, so the next one starts at the same number.
  sk: `PAG#${after ?? ''}`,
});

/**
 * Writes a page's batches and what it made of the page, once: all in one
 * transaction on the condition that the page is not planned yet. A planner
 * step run again (SQS redelivery) gets the page as first planned, even if the
 * audience changed in between, so the chain of pages never forks and no
 * contact lands in two batches. Answers the page as stored.
 */
export async function planPageOnce(
  accountId: string,
  broadcastId: string,
  after: string | undefined,
  batches: readonly { batch: number; contactIds: string[] }[],
  page: PlannedPage,
): Promise<PlannedPage> {
  const key = pageKey(accountId, broadcastId, after);
  try {
    await transactWrite([
      putNew({ ...key, entity: 'broadcastPage', ...page }),
      ...batches.map((batch) => ({
        Put: {
          TableName: tableName,
          Item: { ...batchKey(accountId, broadcastId, batch.batch), entity: 'broadcastBatch', batch: batch.batch, contactIds: batch.contactIds },
        },
      })),
    ]);
    return page;
  } catch (error) {
    if (!firstConditionFailed(error)) throw error;
    const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }));
    return { batches: Number(Item!.batches), recipients: Number(Item!.recipients), ...(typeof Item!.next === 'string' ? { next: Item!.next } : {}) };
  }
}

export async function getBatch(accountId: string, broadcastId: string, batch: number): Promise<BroadcastBatch | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: batchKey(accountId, broadcastId, batch), ConsistentRead: true }));
  if (!Item) return undefined;
  const counted = { sent: Number(Item.countedSent ?? 0), suppressed: Number(Item.countedSuppressed ?? 0), failed: Number(Item.countedFailed ?? 0) };
  return { batch: Number(Item.batch), contactIds: Item.contactIds as string[], done: Item.done === true, counted };
}

/**
 * Which attempt sends a batch, and which of its recipients that attempt may
 * have handed to SES without their record written yet. The lease stands in
 * for a claim per message: one write per SEND_CONCURRENCY messages instead
 * of one each, with the same promise (docs/broadcasts.md, "Exactly once").
 */
export interface BatchLease {
  /** The attempt holding the batch and when it last renewed; none once it gave the batch up. */
  holder?: { token: string; at: string };
  /** Contact ids whose messages the holder is sending now: each has its record afterwards, or may have left without one. */
  inFlight: string[];
  /** Attempts that took the batch: the version the next taker must see. */
  attempts: number;
}

export async function getBatchLease(accountId: string, broadcastId: string, batch: number): Promise<BatchLease | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: leaseKey(accountId, broadcastId, batch), ConsistentRead: true }));
  if (!Item) return undefined;
  return {
    ...(Item.holder ? { holder: Item.holder as BatchLease['holder'] } : {}),
    inFlight: (Item.inFlight ?? []) as string[],
    attempts: Number(Item.attempts ?? 0),
  };
}

/**
 * Takes the batch for the attempt `holder`, if the lease is still as `seen`
 * (none, or the same number of attempts): of racing attempts one wins. The
 * previous holder's `inFlight` is kept until the new one has settled it.
 */
export async function takeBatchLease(
  accountId: string,
  broadcastId: string,
  batch: number,
  seen: BatchLease | undefined,
  holder: { token: string; at: string },
): Promise<boolean> {
  try {
    await db.send(
      new PutCommand({
        TableName: tableName,
        Item: {
          ...leaseKey(accountId, broadcastId, batch),
          entity: 'broadcastLease',
          holder,
          inFlight: seen?.inFlight ?? [],
          attempts: (seen?.attempts ?? 0) + 1,
        },
        ...(seen
          ? { ConditionExpression: 'attempts = :seen', ExpressionAttributeValues: { ':seen': seen.attempts } }
          : { ConditionExpression: 'attribute_not_exists(pk)' }),
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

const HELD_BY = { ConditionExpression: '#holder.#token = :token', names: { '#holder': 'holder', '#token': 'token' } } as const;

/** Names the recipients about to go to SES and renews the lease; false when another attempt has taken the batch over. */
export function markInFlight(accountId: string, broadcastId: string, batch: number, token: string, contactIds: readonly string[], at: Date): Promise<boolean> {
  return updateIf({
    Key: leaseKey(accountId, broadcastId, batch),
    UpdateExpression: 'SET inFlight = :ids, #holder.#at = :at',
    ConditionExpression: HELD_BY.ConditionExpression,
    ExpressionAttributeNames: { ...HELD_BY.names, '#at': 'at' },
    ExpressionAttributeValues: { ':ids': contactIds, ':at': at.toISOString(), ':token': token },
  });
}

/** Gives the batch up with nothing in flight (SES throttled, or the quota ran out), so the next attempt need not wait for the lease to expire. */
export function releaseBatchLease(accountId: string, broadcastId: string, batch: number, token: string): Promise<boolean> {
  return updateIf({
    Key: leaseKey(accountId, broadcastId, batch),
    UpdateExpression: 'SET inFlight = :none REMOVE #holder',
    ConditionExpression: HELD_BY.ConditionExpression,
    ExpressionAttributeNames: HELD_BY.names,
    ExpressionAttributeValues: { ':none': [], ':token': token },
  });
}

/** The batches not finished yet, to queue again when a paused broadcast resumes. */
export async function unfinishedBatches(accountId: string, broadcastId: string): Promise<number[]> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :batch)',
    FilterExpression: 'attribute_not_exists(done)',
    ProjectionExpression: '#batch',
    ExpressionAttributeNames: { '#batch': 'batch' },
    ExpressionAttributeValues: { ':pk': batchKey(accountId, broadcastId, 0).pk, ':batch': 'BAT#' },
  });
  return items.map((item) => Number(item.batch));
}

/**
 * The recipients of the pages planned so far, raised page by page so the
 * broadcast's progress shows while a large audience is still being planned;
 * with `batches`, the planner's last word. Never lowered: a page's step run
 * again after a later page's (SQS redelivery) changes nothing. Answers the
 * broadcast's status as this write found it (undefined when it wrote
 * nothing): read after the page's batches were written, so a resume that
 * comes later finds them.
 */
export async function recordPlan(accountId: string, broadcastId: string, plan: { recipients: number; batches?: number }): Promise<BroadcastStatus | undefined> {
  const { list, values } = statusValues(['sending', 'paused', 'cancelled']);
  const item = await updateReturning({
    Key: broadcastKey(accountId, broadcastId),
    UpdateExpression: `SET recipients = :recipients${plan.batches === undefined ? '' : ', batches = :batches'}`,
    ConditionExpression: `attribute_exists(pk) AND #status IN (${list}) AND (attribute_not_exists(recipients) OR recipients <= :recipients)`,
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ...values, ':recipients': plan.recipients, ...(plan.batches === undefined ? {} : { ':batches': plan.batches }) },
  });
  return item?.status as BroadcastStatus | undefined;
}

/** `outcome` less what was counted before, per counter. */
function countedSince(outcome: BatchOutcome, counted: BatchOutcome): BatchOutcome {
  return { sent: outcome.sent - counted.sent, suppressed: outcome.suppressed - counted.suppressed, failed: outcome.failed - counted.failed };
}

/**
 * The batch item's update that holds only while it is not done and what it
 * counted is still `counted` (as the attempt read it): of two attempts, a
 * stale one never counts the same messages again.
 */
function batchCountUpdate(accountId: string, broadcastId: string, batch: number, counted: BatchOutcome, set: string, setValues: Record<string, unknown>) {
  const nothingYet = counted.sent + counted.suppressed + counted.failed === 0;
  return {
    Update: {
      TableName: tableName,
      Key: batchKey(accountId, broadcastId, batch),
      UpdateExpression: set,
      ConditionExpression: `attribute_exists(pk) AND attribute_not_exists(done) AND ${
        nothingYet ? 'attribute_not_exists(countedSent)' : 'countedSent = :cs AND countedSuppressed = :cu AND countedFailed = :cf'
      }`,
      ExpressionAttributeValues: { ...setValues, ...(nothingYet ? {} : { ':cs': counted.sent, ':cu': counted.suppressed, ':cf': counted.failed }) },
    },
  };
}

function counterAdd(accountId: string, broadcastId: string, added: BatchOutcome, batchesDone: number) {
  return {
    Update: {
      TableName: tableName,
      Key: broadcastKey(accountId, broadcastId),
      UpdateExpression: `ADD sent :sent, suppressed :suppressed, failed :failed${batchesDone ? ', batchesDone :done' : ''}`,
      ExpressionAttributeValues: {
        ':sent': added.sent,
        ':suppressed': added.suppressed,
        ':failed': added.failed,
        ...(batchesDone ? { ':done': batchesDone } : {}),
      },
    },
  };
}

/**
 * A transaction of a batch's count and the broadcast's counters: true when
 * applied, false when the batch is done already; a batch counted meanwhile by
 * another attempt throws, so the step runs again from what is stored now.
 */
async function countOnce(accountId: string, broadcastId: string, batch: number, items: TransactItems): Promise<boolean> {
  try {
    await transactWrite(items);
    return true;
  } catch (error) {
    if (!firstConditionFailed(error)) throw error;
    if ((await getBatch(accountId, broadcastId, batch))?.done !== false) return false;
    throw new Error(`Broadcast ${broadcastId} batch ${batch} was counted by another attempt meanwhile`);
  }
}

/**
 * Adds what an attempt that stops short (the quota ran out, or a cancel) did
 * so far to the broadcast's counters, so they show it while the broadcast is
 * paused or cancelled; the batch keeps the tally, and its finish adds only the
 * rest. `counted`: the tally as the attempt read it; `outcome`: the batch's
 * whole outcome now.
 */
export async function countBatchProgress(
  accountId: string,
  broadcastId: string,
  batch: number,
  counted: BatchOutcome,
  outcome: BatchOutcome,
  alongside: (added: BatchOutcome) => TransactItems = () => [],
): Promise<void> {
  const added = countedSince(outcome, counted);
  if (added.sent + added.suppressed + added.failed === 0) return;
  await countOnce(accountId, broadcastId, batch, [
    batchCountUpdate(accountId, broadcastId, batch, counted, 'SET countedSent = :s, countedSuppressed = :u, countedFailed = :f', {
      ':s': outcome.sent,
      ':u': outcome.suppressed,
      ':f': outcome.failed,
    }),
    counterAdd(accountId, broadcastId, added, 0),
    ...alongside(added),
  ]);
}

/**
 * Marks a batch finished and adds its outcome (less what was `counted`
 * before) to the broadcast's counters, with the `alongside` items that outcome
 * calls for (the day's statistics), in one transaction: a redelivered batch
 * (SQS delivers at least once) finds it done and counts nothing. False when it
 * was already done.
 */
export function finishBatch(
  accountId: string,
  broadcastId: string,
  batch: number,
  outcome: BatchOutcome,
  counted: BatchOutcome,
  alongside: (added: BatchOutcome) => TransactItems = () => [],
): Promise<boolean> {
  const added = countedSince(outcome, counted);
  return countOnce(accountId, broadcastId, batch, [
    batchCountUpdate(accountId, broadcastId, batch, counted, 'SET done = :true', { ':true': true }),
    counterAdd(accountId, broadcastId, added, 1),
    ...alongside(added),
  ]);
}

/** Sending → sent once every batch is done: only one finisher wins, so `broadcast.sent` is recorded once. */
export async function completeBroadcast(accountId: string, broadcastId: string, now: Date): Promise<BroadcastRecord | undefined> {
  try {
    const item = await updateReturning({
      Key: broadcastKey(accountId, broadcastId),
      UpdateExpression: 'SET #status = :sent, completedAt = :now, updatedAt = :now',
      ConditionExpression: '#status = :sending AND batchesDone = batches',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':sent': 'sent', ':sending': 'sending', ':now': now.toISOString() },
    });
    return item ? toRecord(item) : undefined;
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}
