/**
 * The account's suppression list: what no contact status holds. SES reported
 * an address that is no contact of the account bounced or complained, an
 * address unsubscribed from all of the account's mail through a signed link,
 * or a person or key put it there by hand (docs/suppressions.md).
 *
 * One partition per account, sorted by the lower-cased address itself, so a
 * search by the start of an address is a Query (`begins_with(sk, …)`) on the
 * items written before the list had an API as well as on new ones.
 */
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { readTogether, type KeyedRead } from '#shared/platform/dynamodb/batches.ts';
import { db, isConditionFailure, tableName, deleteIf, putNew, type TransactItems } from '#shared/platform/dynamodb/client.ts';
import { accountScoped } from '#shared/platform/dynamodb/partition.ts';

export type SuppressionReason = 'unsubscribed' | 'manual' | 'bounced' | 'complained';

/**
 * What put an address on the list: the email that bounced or drew the
 * complaint, the recipient's own signed link, or the member or key that
 * added it by hand. Items written before sources were kept have none.
 */
export interface SuppressionSource {
  type: 'email' | 'recipient' | 'member' | 'key' | 'operator';
  id: string | null;
}

export interface SuppressionRecord {
  email: string;
  reason: SuppressionReason;
  createdAt: string;
  source: SuppressionSource | null;
}

/**
 * Weakest first. A reason never replaces a stronger one: an unsubscribe must
 * not turn a bounce into something OTP and transactional sends ignore, and a
 * bounce never hides a complaint. A manual suppression yields to what SES
 * reports later, which says more about the address.
 */
const STRENGTH: readonly SuppressionReason[] = ['unsubscribed', 'manual', 'bounced', 'complained'];

const suppressionPartition = (accountId: string) => accountScoped(accountId, 'SUPPRESSED');

export const suppressionKey = (accountId: string, email: string) => ({ pk: suppressionPartition(accountId), sk: email });

function suppressionItem(accountId: string, email: string, reason: SuppressionReason, source: SuppressionSource | undefined, now: Date) {
  return { ...suppressionKey(accountId, email), entity: 'suppression', email, reason, createdAt: now.toISOString(), ...(source ? { source } : {}) };
}

function toSuppression(item: Record<string, unknown>): SuppressionRecord {
  return {
    email: item.email as string,
    reason: item.reason as SuppressionReason,
    createdAt: item.createdAt as string,
    source: (item.source as SuppressionSource | undefined) ?? null,
  };
}

/**
 * Records the address unless the same or a stronger reason is already there:
 * a replayed event keeps the first date, and a complaint is never downgraded.
 */
export async function putSuppression(accountId: string, email: string, reason: SuppressionReason, now: Date, source?: SuppressionSource): Promise<void> {
  const kept = Object.fromEntries(STRENGTH.slice(STRENGTH.indexOf(reason)).map((other, index) => [`:kept${index}`, other]));
  await db
    .send(
      new PutCommand({
        TableName: tableName,
        Item: suppressionItem(accountId, email, reason, source, now),
        ConditionExpression: `attribute_not_exists(reason) OR NOT (reason IN (${Object.keys(kept).join(', ')}))`,
        ExpressionAttributeValues: kept,
      }),
    )
    .catch((error: unknown) => {
      if (!isConditionFailure(error)) throw error;
    });
}

/**
 * The transaction item that records the address's own unsubscribe when it
 * has no suppression yet (any reason is at least as strong), for the
 * transaction that records its event: a repeat cancels both.
 */
export function newUnsubscribePut(accountId: string, email: string, now: Date): TransactItems[number] {
  return putNew(suppressionItem(accountId, email, 'unsubscribed', { type: 'recipient', id: null }, now));
}

/** The transaction item that puts an address on the list by hand, only when it is on it for no reason yet. */
export function newManualPut(accountId: string, email: string, source: SuppressionSource, now: Date): TransactItems[number] {
  return putNew(suppressionItem(accountId, email, 'manual', source, now));
}

/** The transaction item that lifts the suppression exactly as it was read: a change made meanwhile cancels the lift. */
export function suppressionDelete(accountId: string, record: SuppressionRecord): TransactItems[number] {
  return {
    Delete: {
      TableName: tableName,
      Key: suppressionKey(accountId, record.email),
      ConditionExpression: 'reason = :reason AND createdAt = :createdAt',
      ExpressionAttributeValues: { ':reason': record.reason, ':createdAt': record.createdAt },
    },
  };
}

export async function getSuppressionRecord(accountId: string, email: string): Promise<SuppressionRecord | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: suppressionKey(accountId, email), ConsistentRead: true }));
  return Item ? toSuppression(Item) : undefined;
}

export async function getSuppression(accountId: string, email: string): Promise<SuppressionReason | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: suppressionKey(accountId, email) }));
  return Item?.reason as SuppressionReason | undefined;
}

/**
 * One page of the list in address order: the addresses that start with
 * `prefix` (a key condition on the sort key, never a scan), of one reason
 * when given (a filter within the account's partition, so a page may hold
 * fewer than `limit` items and still have a next one).
 */
export async function querySuppressions(
  accountId: string,
  options: { prefix?: string; reason?: SuppressionReason; limit: number; startKey?: Record<string, string> },
): Promise<{ suppressions: SuppressionRecord[]; lastKey?: Record<string, string> }> {
  const response = await db.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: options.prefix ? 'pk = :pk AND begins_with(sk, :prefix)' : 'pk = :pk',
      ...(options.reason ? { FilterExpression: 'reason = :reason' } : {}),
      ExpressionAttributeValues: {
        ':pk': suppressionPartition(accountId),
        ...(options.prefix ? { ':prefix': options.prefix } : {}),
        ...(options.reason ? { ':reason': options.reason } : {}),
      },
      Limit: options.limit,
      ExclusiveStartKey: options.startKey,
    }),
  );
  return { suppressions: (response.Items ?? []).map(toSuppression), lastKey: response.LastEvaluatedKey as Record<string, string> | undefined };
}

/** The recorded reason of each address that has one, as a read `readTogether` can join to others. */
export function suppressionsRead(accountId: string, emails: readonly string[]): KeyedRead<Map<string, SuppressionReason>> {
  const keys = emails.map((email) => suppressionKey(accountId, email));
  return {
    keys,
    result: (found) =>
      new Map(keys.flatMap((key) => [found(key)].filter((item) => item !== undefined)).map((item) => [item.email as string, item.reason as SuppressionReason])),
  };
}

/** The recorded reason of each address that has one: one BatchGetItem per 100 addresses, whatever their number. */
export async function getSuppressions(accountId: string, emails: readonly string[]): Promise<Map<string, SuppressionReason>> {
  const [listed] = await readTogether(suppressionsRead(accountId, emails));
  return listed;
}

/**
 * Lifts an unsubscribe (the address rejoins through its preferences page);
 * false when the address is not suppressed for that reason. A bounce or a
 * complaint is the service's record, never the recipient's to clear.
 */
export async function removeUnsubscribe(accountId: string, email: string): Promise<boolean> {
  return deleteIf({
    Key: suppressionKey(accountId, email),
    ConditionExpression: 'reason = :unsubscribed',
    ExpressionAttributeValues: { ':unsubscribed': 'unsubscribed' },
  });
}
