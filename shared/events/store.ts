/**
 * Events (`evt_`): one item per underlying change, keyed by a hash of the
 * change's source key, so that writing it is also claiming it: a replayed
 * notification or a retried write finds the item there and adds nothing.
 * The lists read the three overloaded indexes, newest first by id (ids sort
 * by time), so every page costs its own items whatever the history's size:
 *
 * - gsi1 `acc_X#EVT` / `evt_…`: the account's events;
 * - gsi2 `acc_X#EVT#<type>` / `evt_…`: one type;
 * - gsi3 `acc_X#EML#eml_E#EVT` / `evt_…`: one email's (only events with an `emailId`).
 */
import { createHash } from 'node:crypto';
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { idBoundAt } from '#shared/platform/ids.ts';
import { EVENT_SORT_KEY } from './stream-records.ts';
import { db, isConditionFailure, putNew, tableName, transactWrite, TransactionCancelled, type TransactItems } from '#shared/platform/dynamodb/client.ts';
import { accountScoped } from '#shared/platform/dynamodb/partition.ts';

/** The `entity` of an event item. */
export const EVENT_ENTITY = 'event';

export interface StoredEvent {
  id: string;
  type: string;
  createdAt: string;
  data: Record<string, unknown>;
}

export type EventIndex = 'gsi1' | 'gsi2' | 'gsi3';

/** The item of the change `sourceKey`: hashed, so any text fits a key and none of it is kept there. */
export function eventKey(accountId: string, sourceKey: string) {
  return { pk: accountScoped(accountId, 'EVTSRC', createHash('sha256').update(sourceKey, 'utf8').digest('base64url')), sk: EVENT_SORT_KEY };
}

/** The partition of each list in its index. */
export const eventLists = {
  account: (accountId: string) => ({ index: 'gsi1' as const, partition: accountScoped(accountId, 'EVT') }),
  type: (accountId: string, type: string) => ({ index: 'gsi2' as const, partition: accountScoped(accountId, 'EVT', type) }),
  email: (accountId: string, emailId: string) => ({ index: 'gsi3' as const, partition: accountScoped(accountId, 'EML', emailId, 'EVT') }),
};

function toEvent(item: Record<string, unknown>): StoredEvent {
  return { id: item.id as string, type: item.type as string, createdAt: item.createdAt as string, data: item.data as Record<string, unknown> };
}

/** The stored item of an event: the claim of its change and its place in the three lists. */
export function eventItem(accountId: string, sourceKey: string, event: StoredEvent, expiresAt: number): Record<string, unknown> {
  const emailId = typeof event.data.emailId === 'string' ? event.data.emailId : undefined;
  return {
    ...eventKey(accountId, sourceKey),
    entity: EVENT_ENTITY,
    ...event,
    expiresAt,
    gsi1pk: eventLists.account(accountId).partition,
    gsi1sk: event.id,
    gsi2pk: eventLists.type(accountId, event.type).partition,
    gsi2sk: event.id,
    ...(emailId ? { gsi3pk: eventLists.email(accountId, emailId).partition, gsi3sk: event.id } : {}),
  };
}

/**
 * The transaction items that record `event` with the change it reports, in
 * the same TransactWriteItems: the item is keyed by `sourceKey`, so it is its
 * own claim, and the transaction fails (ConditionalCheckFailed on this item)
 * when the change was recorded already. Writing it is all a producer does:
 * the table's stream hands it to the webhook fan-out (shared/webhooks/stream.ts).
 */
export function eventPut(accountId: string, sourceKey: string, event: StoredEvent, expiresAt: number): TransactItems {
  return [putNew(eventItem(accountId, sourceKey, event, expiresAt))];
}

/**
 * Writes event items (from `eventPut`) that have no change to ride with, all
 * or none: false when they were recorded before (a replay), which writes nothing.
 */
export async function putEventItemsOnce(items: TransactItems): Promise<boolean> {
  try {
    await transactWrite(items);
    return true;
  } catch (error) {
    if (error instanceof TransactionCancelled && error.reasons.includes('ConditionalCheckFailed')) return false;
    throw error;
  }
}

/**
 * Writes the event unless its change was recorded already (`attribute_not_exists`,
 * so of racing writers exactly one wins); then answers the one that is stored.
 */
export async function putEventOnce(
  accountId: string,
  sourceKey: string,
  event: StoredEvent,
  expiresAt: number,
): Promise<{ event: StoredEvent; created: boolean }> {
  try {
    await db.send(new PutCommand(putNew(eventItem(accountId, sourceKey, event, expiresAt)).Put!));
    return { event, created: true };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: eventKey(accountId, sourceKey), ConsistentRead: true }));
  return { event: toEvent(Item!), created: false };
}

/**
 * The account and event of an event item as the stream carries it
 * (unmarshalled); undefined for any other item.
 */
export function storedEventOf(item: Record<string, unknown>): { accountId: string; event: StoredEvent } | undefined {
  if (item.entity !== EVENT_ENTITY || item.sk !== EVENT_SORT_KEY || typeof item.pk !== 'string') return undefined;
  return { accountId: item.pk.slice(0, item.pk.indexOf('#')), event: toEvent(item) };
}

export interface EventQuery {
  index: EventIndex;
  partition: string;
  /** Inclusive bounds on creation time, epoch ms. */
  fromMs: number;
  toMs?: number;
  newestFirst: boolean;
  limit: number;
  startKey?: Record<string, string>;
  /** Epoch seconds: items past their TTL that DynamoDB has not removed yet are left out. */
  nowSeconds: number;
}

/**
 * One page of a list: at most `limit` items read (expired ones are read but
 * not answered, so a page may be short), and where the next page starts.
 */
export async function queryEvents(query: EventQuery): Promise<{ events: StoredEvent[]; lastKey?: Record<string, string> }> {
  const { index } = query;
  const response = await db.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: index,
      KeyConditionExpression: '#pk = :partition AND #sk BETWEEN :from AND :to',
      FilterExpression: 'expiresAt > :now',
      ExpressionAttributeNames: { '#pk': `${index}pk`, '#sk': `${index}sk` },
      ExpressionAttributeValues: {
        ':partition': query.partition,
        ':from': idBoundAt('evt', query.fromMs, 'first'),
        // Past every id: `~` sorts after the base62 alphabet.
        ':to': query.toMs === undefined ? 'evt_~' : idBoundAt('evt', query.toMs, 'last'),
        ':now': query.nowSeconds,
      },
      ScanIndexForward: !query.newestFirst,
      Limit: query.limit,
      ExclusiveStartKey: query.startKey,
    }),
  );
  return { events: (response.Items ?? []).map(toEvent), lastKey: response.LastEvaluatedKey as Record<string, string> | undefined };
}
