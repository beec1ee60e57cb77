/**
 * The account's sending statistics (GET /api/stats): counts of messages per
 * UTC day, kept as the email events are recorded, never counted from the log.
 *
 * One partition per account (`acc_X#STATS`), one item per day and shard
 * (`2026-11-21#3`) holding the day's counts. A count is one ADD on one item,
 * in the transaction of the change it counts where there is one (feedback,
 * the retry worker), so it is applied exactly when the change and its event
 * are, once however often the news is delivered. Shards spread an account's
 * writes over SHARDS items a day, so that a busy account's concurrent
 * transactions seldom meet on one item; a range of days is one Query over
 * the partition, its shards included (90 days × 8 shards of about 150 bytes:
 * far below a page). The partition also holds the month's usage
 * (shared/accounts/usage-store.ts), which a range reaching the month reads too.
 */
import { createHash } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, outlastingTransactions, queryAll, tableName, type TransactItems } from '#shared/platform/dynamodb/client.ts';
import { statisticsPartition } from '#shared/platform/dynamodb/partition.ts';

export const STATS_COUNTS = ['sent', 'delivered', 'bounced', 'complained', 'opened', 'clicked', 'failed'] as const;
export type StatsCount = (typeof STATS_COUNTS)[number];
export type StatsCounts = Record<StatsCount, number>;

const SHARDS = 8;
/** Kept about 13 months, beyond any range a request reads back from today (90 days), for month-on-month comparison. */
const KEPT_DAYS = 400;

const statsPartition = statisticsPartition;
const STATS_ENTITY = 'stats';

/** `2026-11-21`: the UTC day of `at`. */
export const dayOf = (at: Date): string => at.toISOString().slice(0, 10);

/** The day's shard for a message: the same one for all its events, any one being as good as another. */
function shardOf(seed: string): number {
  return createHash('sha256').update(seed).digest()[0]! % SHARDS;
}

/** The ADD of `counts` (the non-zero ones) to the day of `at`, on the shard `seed` picks. */
function addition(accountId: string, at: Date, counts: Partial<StatsCounts>, seed: string) {
  const added = Object.entries(counts).filter(([, value]) => value !== undefined && value !== 0) as [StatsCount, number][];
  if (added.length === 0) return undefined;
  const day = dayOf(at);
  return {
    TableName: tableName,
    Key: { pk: statsPartition(accountId), sk: `${day}#${shardOf(seed)}` },
    UpdateExpression: `SET entity = :entity, #day = :day, expiresAt = :expiresAt ADD ${added.map(([name]) => `#${name} :${name}`).join(', ')}`,
    ExpressionAttributeNames: { '#day': 'day', ...Object.fromEntries(added.map(([name]) => [`#${name}`, name])) },
    ExpressionAttributeValues: {
      ':entity': STATS_ENTITY,
      ':day': day,
      ':expiresAt': Math.floor(Date.parse(`${day}T00:00:00Z`) / 1000) + KEPT_DAYS * 86_400,
      ...Object.fromEntries(added.map(([name, value]) => [`:${name}`, value])),
    },
  };
}

/** The transaction item that counts a change of one message, for the change's own transaction; none when nothing counts. */
export function statsCountItems(accountId: string, at: Date, counts: Partial<StatsCounts>, emailId: string): TransactItems {
  const update = addition(accountId, at, counts, emailId);
  return update ? [{ Update: update }] : [];
}

/**
 * Counts messages that have no transaction to ride in (fresh records, written
 * by batch): one UpdateItem, retried while a transaction on the same shard is
 * in progress.
 */
export async function addStats(accountId: string, at: Date, counts: Partial<StatsCounts>, seed: string): Promise<void> {
  const update = addition(accountId, at, counts, seed);
  if (update) await outlastingTransactions(() => db.send(new UpdateCommand(update)));
}

/**
 * The counts of each day from `startDay` to `endDay` (both included) that has
 * any, by day: one Query of every shard. With `from`, a sort key before
 * `startDay`, the Query starts there, and the items it meets that are not a
 * day's counts in the range (the month's usage, which the partition holds
 * too) are answered as `others`.
 */
export async function readStats(
  accountId: string,
  startDay: string,
  endDay: string,
  from = startDay,
): Promise<{ days: Map<string, StatsCounts>; others: Record<string, unknown>[] }> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    // `~` sorts after `#` and every digit: the last day's shards are all in range.
    ExpressionAttributeValues: { ':pk': statsPartition(accountId), ':from': from < startDay ? from : startDay, ':to': `${endDay}~` },
  });
  const days = new Map<string, StatsCounts>();
  const others: Record<string, unknown>[] = [];
  for (const item of items) {
    const day = item.day as string;
    if (item.entity !== STATS_ENTITY || day < startDay) {
      others.push(item);
      continue;
    }
    const counts = days.get(day) ?? (Object.fromEntries(STATS_COUNTS.map((name) => [name, 0])) as StatsCounts);
    for (const name of STATS_COUNTS) counts[name] += Number(item[name] ?? 0);
    days.set(day, counts);
  }
  return { days, others };
}
