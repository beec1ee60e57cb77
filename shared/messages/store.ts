import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetAll, batchWriteAll } from '#shared/platform/dynamodb/batches.ts';
import { db, tableName, transactWrite, TransactionCancelled, updateIf, type TransactItems } from '#shared/platform/dynamodb/client.ts';
import { accountScoped } from '#shared/platform/dynamodb/partition.ts';
import { releaseEmailsItem } from '#shared/accounts/service.ts';
import { optionalStrings, strings } from '#shared/platform/dynamodb/attributes.ts';
import { addStats, statsCountItems, type StatsCounts } from './stats-store.ts';

export type EmailType = 'email' | 'otp' | 'transactional' | 'broadcast';

/**
 * sent: SES accepted it (or a test key pretended to); failed: SES refused it;
 * suppressed: the recipient's contact status kept it back; queued: SES throttled
 * it and it waits on the retry queue (the worker moves it to sent or failed);
 * sending: a broadcast worker of an earlier version claimed it and was handing
 * it to SES (the engine now settles such a record as unconfirmed).
 * delivered, bounced, complained, rejected: what SES later reported (feedback events).
 */
export type EmailStatus = 'sent' | 'failed' | 'queued' | 'sending' | 'suppressed' | 'delivered' | 'bounced' | 'complained' | 'rejected';

export interface EmailRecord {
  emailId: string;
  trackingId: string;
  type: EmailType;
  /** As the header carried it: `Acme <news@acme.com>`. */
  from: string;
  to: string;
  cc: string[];
  bcc: string[];
  replyTo?: string;
  subject: string;
  status: EmailStatus;
  error?: { code: string; message: string };
  sesMessageId?: string;
  /** Made with a test key: validated and recorded, never handed to SES. */
  test: boolean;
  /** The broadcast this message is one of. */
  broadcastId?: string;
  createdAt: string;
  /** Open and click tracking (SES event publishing): notifications counted, each once. */
  opens?: number;
  clicks?: number;
  firstOpenedAt?: string;
  lastClickedAt?: string;
}

/**
 * One partition per email: a record is read by id, and a send of many
 * messages spreads its writes instead of heating one partition. The message
 * log reads the indexes (docs/data-model.md, "Message log").
 */
export const emailKey = (accountId: string, emailId: string) => ({ pk: accountScoped(accountId, 'EML', emailId), sk: 'EMAIL' });
/**
 * gsi1 of a record SES accepted: its SES message id, the one thing SES's
 * account-level suppression list remembers of the message that put an
 * address there (GetSuppressedDestination). Not account-scoped: SES ids are
 * the deployment's, and only the feedback reconciliation reads this index.
 */
const sesMessageIndexKey = (sesMessageId: string) => ({ gsi1pk: `SESMSG#${sesMessageId}`, gsi1sk: 'EMAIL' });

/**
 * The message log's lists, newest first by id (ids sort by time): gsi2 every
 * email of the account, gsi3 those to one address. `to` never changes, so its
 * key is written once; the status changes, so it is a filter, not a key.
 */
const emailLogs = {
  account: (accountId: string) => ({ index: 'gsi2' as const, partition: accountScoped(accountId, 'EMLLOG') }),
  to: (accountId: string, to: string) => ({ index: 'gsi3' as const, partition: accountScoped(accountId, 'EMLTO', to.toLowerCase()) }),
};

function logKeys(accountId: string, record: EmailRecord) {
  return {
    gsi2pk: emailLogs.account(accountId).partition,
    gsi2sk: record.emailId,
    gsi3pk: emailLogs.to(accountId, record.to).partition,
    gsi3sk: record.emailId,
  };
}

function toRecord(item: Record<string, unknown>): EmailRecord {
  return {
    ...strings(item, 'emailId', 'trackingId', 'from', 'to', 'subject', 'createdAt'),
    type: item.type as EmailType,
    cc: (item.cc ?? []) as string[],
    bcc: (item.bcc ?? []) as string[],
    ...optionalStrings(item, 'replyTo', 'sesMessageId', 'broadcastId'),
    status: item.status as EmailStatus,
    ...(item.error ? { error: item.error as { code: string; message: string } } : {}),
    test: item.test === true,
    ...(typeof item.opens === 'number' ? { opens: item.opens } : {}),
    ...(typeof item.clicks === 'number' ? { clicks: item.clicks } : {}),
    ...optionalStrings(item, 'firstOpenedAt', 'lastClickedAt'),
  };
}

/**
 * What a message's arrival in a status counts in the day's statistics: each
 * message once per outcome, so that rates are shares of the messages sent.
 * `rejected` (SES refused it after accepting it) counts as failed.
 */
const STATUS_COUNTS: Partial<Record<EmailStatus, keyof StatsCounts>> = {
  sent: 'sent',
  failed: 'failed',
  delivered: 'delivered',
  bounced: 'bounced',
  complained: 'complained',
  rejected: 'failed',
};

/**
 * Stores records, expiring at `expiresAt` (epoch seconds, the table's TTL),
 * with the `alongside` items (their events) in the same BatchWriteItem calls,
 * 25 per call, retrying what DynamoDB leaves unprocessed under load. Beside
 * them, one write counts the records that were sent or failed in the day's
 * statistics (test messages never count): a batch write cannot carry an ADD,
 * and fresh records are written once, so no redelivery can count them twice.
 * `counted: 'by the caller'`: the caller counts them in a write of its own
 * that is exactly once already (a broadcast batch's settlement), for a write
 * fewer per message.
 */
export async function putEmailRecords(
  accountId: string,
  records: readonly EmailRecord[],
  expiresAt: number,
  alongside: readonly Record<string, unknown>[] = [],
  counted: 'here' | 'by the caller' = 'here',
): Promise<void> {
  const counts: Partial<StatsCounts> = {};
  for (const record of counted === 'here' ? records : []) {
    const count = record.test ? undefined : STATUS_COUNTS[record.status];
    if (count) counts[count] = (counts[count] ?? 0) + 1;
  }
  const requests = records.map((record) => ({
    PutRequest: {
      Item: {
        ...emailKey(accountId, record.emailId),
        ...(record.sesMessageId ? sesMessageIndexKey(record.sesMessageId) : {}),
        ...logKeys(accountId, record),
        entity: 'email',
        ...record,
        expiresAt,
      },
    },
  }));
  await Promise.all([
    batchWriteAll([...requests, ...alongside.map((Item) => ({ PutRequest: { Item } }))]),
    records.length > 0 ? addStats(accountId, new Date(), counts, records[0]!.emailId) : undefined,
  ]);
}

export interface EmailLogQuery {
  /** Only emails to this (lower-cased) address: its own list. */
  to?: string;
  /** Filters on the items read; they do not narrow what is read. */
  status?: EmailStatus;
  broadcastId?: string;
  /** Inclusive bounds on the email ids, made from dates with `idBoundAt`. */
  fromId: string;
  toId?: string;
  /** Emails answered at most. */
  limit: number;
  /** Items read at most: `limit` without a filter, more with one. */
  examine: number;
  startKey?: Record<string, string>;
}

/**
 * One page of the message log, newest first: at most `query.examine` items
 * read, at most `query.limit` answered, and the position after the last one
 * answered (none at the end of the list).
 */
export async function queryEmailLog(accountId: string, query: EmailLogQuery): Promise<{ records: EmailRecord[]; lastKey?: Record<string, string> }> {
  const { index, partition } = query.to === undefined ? emailLogs.account(accountId) : emailLogs.to(accountId, query.to);
  const filters = [
    ...(query.status === undefined ? [] : [['#status', 'status', ':status', query.status]]),
    ...(query.broadcastId === undefined ? [] : [['#broadcastId', 'broadcastId', ':broadcastId', query.broadcastId]]),
  ] as const;
  const response = await db.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: index,
      KeyConditionExpression: '#pk = :partition AND #sk BETWEEN :from AND :to',
      ...(filters.length ? { FilterExpression: filters.map(([name, , value]) => `${name} = ${value}`).join(' AND ') } : {}),
      ExpressionAttributeNames: { '#pk': `${index}pk`, '#sk': `${index}sk`, ...Object.fromEntries(filters.map(([name, attribute]) => [name, attribute])) },
      ExpressionAttributeValues: {
        ':partition': partition,
        ':from': query.fromId,
        // Past every id: `~` sorts after the base62 alphabet.
        ':to': query.toId ?? 'eml_~',
        ...Object.fromEntries(filters.map(([, , value, given]) => [value, given])),
      },
      ScanIndexForward: false,
      Limit: query.examine,
      ExclusiveStartKey: query.startKey,
    }),
  );
  const items = response.Items ?? [];
  if (items.length <= query.limit) return { records: items.map(toRecord), lastKey: response.LastEvaluatedKey as Record<string, string> | undefined };
  // More matched than a page holds: the next page starts after the last one answered.
  const last = items[query.limit - 1]!;
  const lastKey = Object.fromEntries(['pk', 'sk', `${index}pk`, `${index}sk`].map((name) => [name, last[name] as string]));
  return { records: items.slice(0, query.limit).map(toRecord), lastKey };
}

export async function getEmailRecord(accountId: string, emailId: string): Promise<EmailRecord | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: emailKey(accountId, emailId) }));
  return Item ? toRecord(Item) : undefined;
}

/** One conditional change of a record: the parts of its UpdateItem. */
export interface EmailChange {
  UpdateExpression: string;
  ConditionExpression: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues: Record<string, unknown>;
  /** What the change counts in the day's statistics when it applies (shared/messages/stats-store.ts). */
  counts?: Partial<StatsCounts>;
  /** The change to apply instead when this one's condition refuses it (a repeated open: counted only the first time). */
  otherwise?: EmailChange;
}

const STATUS = { '#status': 'status' } as const;

/** Only a record still waiting on the retry queue is settled by the worker: a repeated delivery of its queue message is a no-op. */
const STILL_QUEUED = { ConditionExpression: '#status = :queued', ExpressionAttributeNames: STATUS } as const;

/** The changes feedback and the retry worker make, each conditional so that applying it again changes nothing. */
export const emailChanges = {
  /**
   * To `to` if the status is one of `from`: later news never rolls a record
   * back, and the message counts in the day's `to` once (a test message never).
   */
  status(from: readonly EmailStatus[], to: EmailStatus, options: { test?: boolean } = {}): EmailChange {
    const values = Object.fromEntries(from.map((status, index) => [`:from${index}`, status]));
    const count = options.test ? undefined : STATUS_COUNTS[to];
    return {
      UpdateExpression: 'SET #status = :to',
      ConditionExpression: `attribute_exists(pk) AND #status IN (${Object.keys(values).join(', ')})`,
      ExpressionAttributeNames: STATUS,
      ExpressionAttributeValues: { ...values, ':to': to },
      ...(count ? { counts: { [count]: 1 } } : {}),
    };
  },
  /** Queued → sent, with SES's message id (and its index entry, for the reconciliation). */
  sentFromQueue(sesMessageId: string): EmailChange {
    const index = sesMessageIndexKey(sesMessageId);
    return {
      UpdateExpression: 'SET #status = :sent, sesMessageId = :messageId, gsi1pk = :gsi1pk, gsi1sk = :gsi1sk',
      ...STILL_QUEUED,
      ExpressionAttributeValues: { ':queued': 'queued', ':sent': 'sent', ':messageId': sesMessageId, ':gsi1pk': index.gsi1pk, ':gsi1sk': index.gsi1sk },
      counts: { sent: 1 },
    };
  },
  /** One more open; the first one's time is kept, and the first one counts the message as opened. */
  opened(at: string): EmailChange {
    return firstOrRepeat('firstOpenedAt', 'opened', {
      UpdateExpression: 'SET firstOpenedAt = if_not_exists(firstOpenedAt, :at) ADD opens :one',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':one': 1, ':at': at },
    });
  },
  /** One more click, and its time as the last one's (SES reports clicks in the order they happen, give or take a retry); the first counts the message as clicked. */
  clicked(at: string): EmailChange {
    return firstOrRepeat('lastClickedAt', 'clicked', {
      UpdateExpression: 'SET lastClickedAt = :at ADD clicks :one',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':one': 1, ':at': at },
    });
  },
};

/**
 * A repeatable change (an open, a click) that counts its message once: tried
 * first as the first of its kind (`marker` not yet set) with the count, and
 * as a repeat, uncounted, when the record refuses that. The first open of a
 * message costs one write; each later one a refused write more.
 */
function firstOrRepeat(marker: string, count: keyof StatsCounts, repeat: EmailChange): EmailChange {
  return { ...repeat, ConditionExpression: `${repeat.ConditionExpression} AND attribute_not_exists(${marker})`, counts: { [count]: 1 }, otherwise: repeat };
}

/**
 * applied: the change and everything alongside it were written; refused: the
 * record's condition did not hold (moved on already, or no such record);
 * claimed: an item alongside was there already (an event recorded before:
 * a replay), so nothing was written.
 */
export type EmailChangeOutcome = 'applied' | 'refused' | 'claimed';

/**
 * Applies `change` to the record in one write with the `alongside` items (its
 * event) and what it counts in the statistics of `now`'s day, all or
 * nothing: a replayed notification finds its event's claim (or the record
 * moved on already) and changes no count twice. A refused change with an
 * `otherwise` applies that instead. `countedAlso`: further items for what
 * the change counts, written only with a change that counts (a broadcast's
 * results: shared/broadcasts/stats-store.ts).
 */
export async function changeEmail(
  accountId: string,
  emailId: string,
  change: EmailChange,
  alongside: TransactItems = [],
  now = new Date(),
  countedAlso: (counts: Partial<StatsCounts>) => TransactItems = () => [],
): Promise<EmailChangeOutcome> {
  const { counts, otherwise, ...parts } = change;
  const update = { TableName: tableName, Key: emailKey(accountId, emailId), ...parts };
  const beside = [...alongside, ...(counts ? [...statsCountItems(accountId, now, counts, emailId), ...countedAlso(counts)] : [])];
  const outcome = beside.length === 0 ? ((await updateIf(update)) ? 'applied' : 'refused') : await transactEmail(update, beside);
  return outcome === 'refused' && otherwise ? changeEmail(accountId, emailId, otherwise, alongside, now, countedAlso) : outcome;
}

async function transactEmail(update: NonNullable<TransactItems[number]['Update']>, alongside: TransactItems): Promise<EmailChangeOutcome> {
  try {
    await transactWrite([{ Update: update }, ...alongside]);
    return 'applied';
  } catch (cause) {
    if (!(cause instanceof TransactionCancelled)) throw cause;
    if (cause.reasons.slice(1).includes('ConditionalCheckFailed')) return 'claimed';
    if (cause.reasons[0] === 'ConditionalCheckFailed') return 'refused';
    throw cause;
  }
}

/**
 * Moves the record to `to` if its status is one of `from`; false when it is
 * not (already moved, or no such record). Makes redelivered feedback a no-op.
 */
export async function changeEmailStatus(accountId: string, emailId: string, from: readonly EmailStatus[], to: EmailStatus): Promise<boolean> {
  return (await changeEmail(accountId, emailId, emailChanges.status(from, to))) === 'applied';
}

/** The account and email record of the message SES gave this id; undefined for a message Postlane has no record of. */
export async function findEmailBySesMessageId(sesMessageId: string): Promise<{ accountId: string; emailId: string } | undefined> {
  const { Items } = await db.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :key',
      ExpressionAttributeValues: { ':key': sesMessageIndexKey(sesMessageId).gsi1pk },
      Limit: 1,
    }),
  );
  const item = Items?.[0];
  // The record's partition is `<accountId>#EML#<emailId>`.
  return item ? { accountId: (item.pk as string).split('#')[0]!, emailId: item.emailId as string } : undefined;
}

/**
 * Queued → failed, and the email charged for it given back to the month it
 * was charged in (none: an uncharged cc or bcc copy), in one transaction with
 * the `alongside` items (its event): a message that is never sent is never
 * charged, and a retried call cannot refund twice. False when the record is
 * no longer queued.
 */
export async function failQueuedEmail(
  accountId: string,
  emailId: string,
  error: { code: string; message: string },
  period: string | undefined,
  alongside: TransactItems = [],
): Promise<boolean> {
  const change: EmailChange = {
    UpdateExpression: 'SET #status = :failed, #error = :error',
    ...STILL_QUEUED,
    ExpressionAttributeNames: { ...STATUS, '#error': 'error' },
    ExpressionAttributeValues: { ':queued': 'queued', ':failed': 'failed', ':error': error },
    counts: { failed: 1 },
  };
  const refund = period === undefined ? [] : [releaseEmailsItem(accountId, period, 1)];
  return (await changeEmail(accountId, emailId, change, [...refund, ...alongside])) === 'applied';
}

/** The records of these ids that exist, by id: consistent reads, 100 a call. */
export async function getEmailRecordsById(accountId: string, emailIds: readonly string[]): Promise<Map<string, EmailRecord>> {
  const items = await batchGetAll(emailIds.map((emailId) => emailKey(accountId, emailId)));
  return new Map(items.map((item) => [item.emailId as string, toRecord(item)]));
}
