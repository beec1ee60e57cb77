import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionFailure, tableName } from './client.ts';
import { accountScoped } from './partition.ts';

/**
 * One item per key and UTC day holds the current second's count and the day's
 * count, so a request costs a single conditional write. The condition is the
 * limit: DynamoDB serialises writes to one item, so every Lambda instance sees
 * the same window and none can admit more than the limit.
 */
const windowKey = (accountId: string, keyId: string, day: string) => ({ pk: accountScoped(accountId, 'RATE', keyId, day), sk: 'RATE' });

export interface WindowLimits {
  perSecond: number;
  perDay: number | null;
}

export type WindowOutcome =
  | { admitted: true; secondCount: number }
  | { admitted: false; exhausted: 'second' | 'day' };

/** Counts one request in the key's window, or reports which limit it would break. */
export async function consumeRequest(accountId: string, keyId: string, now: Date, limits: WindowLimits): Promise<WindowOutcome> {
  let second = Math.floor(now.getTime() / 1000);
  const day = now.toISOString().slice(0, 10);
  const key = windowKey(accountId, keyId, day);
  const dayCondition = limits.perDay === null ? '' : ' AND dayCount < :dayLimit';
  const values = () => ({
    ':one': 1,
    ':second': second,
    ...(limits.perDay === null ? {} : { ':dayLimit': limits.perDay }),
  });

  // Two racing "first request of a new second" writes make one loser retry the
  // increment; a few rounds are ample for any interleaving of two steps.
  for (let round = 0; round < 4; round++) {
    try {
      const { Attributes } = await db.send(new UpdateCommand({
        TableName: tableName,
        Key: key,
        UpdateExpression: 'SET secCount = secCount + :one, dayCount = dayCount + :one',
        ConditionExpression: `#sec = :second AND secCount < :secondLimit${dayCondition}`,
        ExpressionAttributeNames: { '#sec': 'sec' },
        ExpressionAttributeValues: { ...values(), ':secondLimit': limits.perSecond },
        ReturnValues: 'UPDATED_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }));
      return { admitted: true, secondCount: Number(Attributes?.secCount) };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      // The document client leaves the returned item in DynamoDB's wire format.
      const old = (error as { Item?: Record<string, { N?: string }> }).Item;
      const dayCount = Number(old?.dayCount?.N ?? 0);
      if (limits.perDay !== null && dayCount >= limits.perDay) return { admitted: false, exhausted: 'day' };
      const windowSecond = Number(old?.sec?.N);
      if (windowSecond === second) return { admitted: false, exhausted: 'second' };
      if (windowSecond > second) {
        // Another instance (a later request, or a clock a little ahead) already opened a newer second: count in it.
        second = windowSecond;
        continue;
      }
    }
    try {
      await db.send(new UpdateCommand({
        TableName: tableName,
        Key: key,
        UpdateExpression: 'SET #sec = :second, secCount = :one, dayCount = if_not_exists(dayCount, :zero) + :one, expiresAt = :expiresAt',
        ConditionExpression: `(attribute_not_exists(#sec) OR #sec < :second)${limits.perDay === null ? '' : ' AND (attribute_not_exists(dayCount) OR dayCount < :dayLimit)'}`,
        ExpressionAttributeNames: { '#sec': 'sec' },
        ExpressionAttributeValues: { ...values(), ':zero': 0, ':expiresAt': second + 2 * 86_400 },
      }));
      return { admitted: true, secondCount: 1 };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
  return { admitted: false, exhausted: 'second' };
}
