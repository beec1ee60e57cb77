import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { KeyedRead } from '#shared/platform/dynamodb/batches.ts';
import { db, isConditionFailure, tableName, type TransactItems } from '#shared/platform/dynamodb/client.ts';

/**
 * One item per account and calendar month (UTC) counting the emails charged
 * against the quota. Under the account's own partition key, beside the account.
 */
const usageKey = (accountId: string, period: string) => ({ pk: accountId, sk: `USAGE#${period}` });

/** Emails counted against the quota in one calendar month (`2026-11`). */
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
 * The limit is the write's condition, and DynamoDB applies writes to one item
 * one at a time, so concurrent senders can never take the total past it.
 */
export async function reserveEmails(accountId: string, period: string, count: number, quota: number): Promise<Reservation> {
  if (count > quota) return { reserved: false, emailsSent: await getEmailsSent(accountId, period) };
  try {
    const { Attributes } = await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: usageKey(accountId, period),
        UpdateExpression: 'SET entity = :entity, period = :period ADD emailsSent :count',
        ConditionExpression: 'attribute_not_exists(emailsSent) OR emailsSent <= :most',
        ExpressionAttributeValues: { ':entity': 'usage', ':period': period, ':count': count, ':most': quota - count },
        ReturnValues: 'UPDATED_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { reserved: true, emailsSent: Number(Attributes?.emailsSent) };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    // The document client leaves the returned item in DynamoDB's wire format.
    const old = (error as { Item?: Record<string, { N?: string }> }).Item;
    return { reserved: false, emailsSent: Number(old?.emailsSent?.N ?? 0) };
  }
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
