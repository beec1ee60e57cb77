import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionFailure, jitteredBackoff, sleep, tableName } from '#shared/platform/dynamodb/client.ts';
import { accountScoped } from '#shared/platform/dynamodb/partition.ts';
import { ConflictError } from '#shared/platform/errors.ts';

/**
 * One item per account and recipient holding the times (epoch ms) of its
 * recent OTP sends, at most `limit` of them: a sliding window is then one
 * item's list, and every admission is a conditional write on that item.
 */
const otpWindowKey = (accountId: string, email: string) => ({ pk: accountScoped(accountId, 'OTP', email), sk: 'OTP' });

export type OtpAdmission =
  | { admitted: true }
  /** `recent`: the sends still inside the window, oldest first. */
  | { admitted: false; recent: number[] };

/** Rounds of optimistic retry; only writers racing inside one window's first `limit` sends ever need one. */
const ROUNDS = 12;

type WireItem = { sends?: { L?: { N?: string }[] }; version?: { N?: string } };

/**
 * Records a send at `at` unless `limit` sends already fall within `windowMs`
 * before it. The common case is one write: append while the list is shorter
 * than the limit (stale entries included, so this never admits too many).
 * Once full, the list is pruned to the window and rewritten on the version
 * it was read at, so two racing writers cannot both take the last place.
 */
export async function admitOtpSend(accountId: string, email: string, at: number, windowMs: number, limit: number): Promise<OtpAdmission> {
  const key = otpWindowKey(accountId, email);
  // Kept a little past the window; readers prune by time anyway, as TTL deletes late.
  const expiresAt = Math.ceil((at + windowMs) / 1000) + 60;
  for (let round = 0; round < ROUNDS; round++) {
    if (round > 0) await sleep(jitteredBackoff(round));
    let old: WireItem | undefined;
    try {
      await db.send(
        new UpdateCommand({
          TableName: tableName,
          Key: key,
          UpdateExpression:
            'SET entity = :entity, sends = list_append(if_not_exists(sends, :empty), :at), version = if_not_exists(version, :zero) + :one, expiresAt = :expiresAt',
          ConditionExpression: 'attribute_not_exists(sends) OR size(sends) < :limit',
          ExpressionAttributeValues: { ':entity': 'otpWindow', ':empty': [], ':at': [at], ':zero': 0, ':one': 1, ':expiresAt': expiresAt, ':limit': limit },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { admitted: true };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      // The document client leaves the returned item in DynamoDB's wire format.
      old = (error as { Item?: WireItem }).Item;
    }
    const version = Number(old?.version?.N ?? 0);
    const recent = (old?.sends?.L ?? [])
      .map((entry) => Number(entry.N))
      .filter((time) => time > at - windowMs)
      .sort((a, b) => a - b);
    if (recent.length >= limit) return { admitted: false, recent };
    try {
      await db.send(
        new UpdateCommand({
          TableName: tableName,
          Key: key,
          UpdateExpression: 'SET sends = :sends, version = :next, expiresAt = :expiresAt',
          ConditionExpression: 'version = :version',
          ExpressionAttributeValues: { ':sends': [...recent, at], ':next': version + 1, ':version': version, ':expiresAt': expiresAt },
        }),
      );
      return { admitted: true };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
  throw new ConflictError('CONFLICT', 'Too many OTP sends to this recipient at once; retry the request');
}
