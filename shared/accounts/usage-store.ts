import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { KeyedRead } from '#shared/platform/dynamodb/batches.ts';
import { db, tableName, type TransactItems } from '#shared/platform/dynamodb/client.ts';
import { countIf } from '#shared/platform/dynamodb/conditional-counter.ts';
import { statisticsPartition } from '#shared/platform/dynamodb/partition.ts';

const USAGE_ENTITY = 'usage';

/**
 * One item per account and calendar month (UTC) counting the emails charged
 * against the quota. In the account's statistics partition, its sort key
 * (`2026-11#USAGE`) just before the month's first day (`2026-11-01#0`), so the
 * Query of a range of days that reaches the month reads it too (GET /api/stats
 * answers the month's usage in the same call).
 */
const usageKey = (accountId: string, period: string) => ({ pk: statisticsPartition(accountId), sk: `${period}#USAGE` });

/** The lowest sort key of the month's usage and days in the statistics partition: a Query from it reads both. */
export const usageSortKey = (period: string): string => usageKey('', period).sk;

/** The month's emails of an item the statistics Query found, or undefined for any other item. */
export function emailsSentOf(item: Record<string, unknown>): number | undefined {
  return item.entity === USAGE_ENTITY ? Number(item.emailsSent ?? 0) : undefined;
}

/** The month's emails sent, as a read `readTogether` joins to others (a send by a test key reads it with its checks). */
export function emailsSentRead(accountId: string, period: string): KeyedRead<number> {
  const key = usageKey(accountId, period);
  return { keys: [key], result: (found) => Number(found(key)?.emailsSent ?? 0) };
}

export async function getEmailsSent(accountId: string, period: string): Promise<number> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: usageKey(accountId, period), ConsistentRead: true }));
  return Number(Item?.emailsSent ?? 0);
}

export type Reservation = { reserved: true; emailsSent: number } | { reserved: false; emailsSent: number };

/**
 * Adds `count` to the month's emails only if the total stays within `quota`.
 * The limit is the write's condition (a conditional counter,
 * shared/platform/dynamodb/conditional-counter.ts), so concurrent senders can
 * never take the total past it; a refusal says how many were sent.
 */
export async function reserveEmails(accountId: string, period: string, count: number, quota: number): Promise<Reservation> {
  if (count > quota) return { reserved: false, emailsSent: await getEmailsSent(accountId, period) };
  const charged = await countIf({
    key: usageKey(accountId, period),
    update: 'SET entity = :entity, period = :period ADD emailsSent :count',
    limit: { withinQuota: 'attribute_not_exists(emailsSent) OR emailsSent <= :most' },
    values: { ':entity': USAGE_ENTITY, ':period': period, ':count': count, ':most': quota - count },
  });
  if (charged.admitted) return { reserved: true, emailsSent: Number(charged.item.emailsSent) };
  return { reserved: false, emailsSent: Number(charged.old?.emailsSent ?? 0) };
}

/** Gives back emails reserved for messages that were not sent; returns the month's new total. */
export async function releaseEmails(accountId: string, period: string, count: number): Promise<number> {
  const { Attributes } = await db.send(
    new UpdateCommand({
      TableName: tableName,
      Key: usageKey(accountId, period),
      UpdateExpression: 'ADD emailsSent :change',
      ExpressionAttributeValues: { ':change': -count },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(Attributes?.emailsSent);
}

/** `releaseEmails` as a transaction item: a refund that must happen together with another write, or not at all. */
export function releaseEmailsItem(accountId: string, period: string, count: number): TransactItems[number] {
  return {
    Update: {
      TableName: tableName,
      Key: usageKey(accountId, period),
      UpdateExpression: 'ADD emailsSent :change',
      ExpressionAttributeValues: { ':change': -count },
    },
  };
}
