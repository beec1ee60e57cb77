/**
 * A broadcast's results (GET /api/broadcasts/:id/stats): what its messages
 * did after they were sent, counted as their events are recorded, never
 * counted from the message log.
 *
 * Items beside the broadcast's batches (`BRO#<id>` partition, `STATS#<shard>`),
 * not on the broadcast's own item: that one holds the content (a 40 KB
 * newsletter would make each count cost 40 write units), and feedback of one
 * broadcast arrives in bursts, so SHARDS items spread its concurrent
 * transactions as the account's daily statistics do
 * (shared/messages/stats-store.ts). Reading is one Query of the shards.
 */
import { createHash } from 'node:crypto';
import { firstConditionFailed, queryAll, tableName, transactWrite, type TransactItems } from '#shared/platform/dynamodb/client.ts';
import { accountScoped } from '#shared/platform/dynamodb/partition.ts';
import { BROADCAST_STATS, type BroadcastStat } from './schema.ts';

export type BroadcastStatCounts = Record<BroadcastStat, number>;

const SHARDS = 8;
const PREFIX = 'STATS#';
/** One per recipient who unsubscribed through the broadcast's links, named by a hash of its address (no address kept here). */
const UNSUBSCRIBED_PREFIX = 'UNSUB#';

const statsPartition = (accountId: string, broadcastId: string) => accountScoped(accountId, 'BRO', broadcastId);

const digest = (text: string) => createHash('sha256').update(text).digest();

function shardOf(seed: string): number {
  return digest(seed)[0]! % SHARDS;
}

/**
 * The transaction item adding `counts` (the non-zero ones) to the
 * broadcast's results, for the transaction of the change it counts (so it
 * is applied exactly once with it); none when nothing counts. `seed` (the
 * email id) picks the shard.
 */
export function broadcastStatsItems(accountId: string, broadcastId: string, counts: Partial<BroadcastStatCounts>, seed: string): TransactItems {
  const added = Object.entries(counts).filter(([name, value]) => (BROADCAST_STATS as readonly string[]).includes(name) && value) as [BroadcastStat, number][];
  if (added.length === 0) return [];
  return [
    {
      Update: {
        TableName: tableName,
        Key: { pk: statsPartition(accountId, broadcastId), sk: `${PREFIX}${shardOf(seed)}` },
        UpdateExpression: `SET entity = :entity ADD ${added.map(([name]) => `#${name} :${name}`).join(', ')}`,
        ExpressionAttributeNames: Object.fromEntries(added.map(([name]) => [`#${name}`, name])),
        ExpressionAttributeValues: { ':entity': 'broadcastStats', ...Object.fromEntries(added.map(([name, value]) => [`:${name}`, value])) },
      },
    },
  ];
}

/** The broadcast's results: one Query of its SHARDS items (none yet: all zero). */
export async function readBroadcastStats(accountId: string, broadcastId: string): Promise<BroadcastStatCounts> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': statsPartition(accountId, broadcastId), ':prefix': PREFIX },
  });
  const counts = Object.fromEntries(BROADCAST_STATS.map((name) => [name, 0])) as BroadcastStatCounts;
  for (const item of items) for (const name of BROADCAST_STATS) counts[name] += Number(item[name] ?? 0);
  return counts;
}

/**
 * Counts one recipient's unsubscribe in the broadcast's `unsubscribed`, once:
 * the recipient's marker (`attribute_not_exists`) and the count in one
 * transaction, so a second click, or a click racing it, counts nothing.
 * True when this call counted it.
 */
export async function countBroadcastUnsubscribe(accountId: string, broadcastId: string, email: string): Promise<boolean> {
  const marker = digest(`${accountId}\n${email}`).toString('base64url');
  try {
    await transactWrite([
      {
        Put: {
          TableName: tableName,
          Item: { pk: statsPartition(accountId, broadcastId), sk: `${UNSUBSCRIBED_PREFIX}${marker}`, entity: 'broadcastUnsubscribe' },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      ...broadcastStatsItems(accountId, broadcastId, { unsubscribed: 1 }, marker),
    ]);
    return true;
  } catch (error) {
    if (firstConditionFailed(error)) return false;
    throw error;
  }
}
