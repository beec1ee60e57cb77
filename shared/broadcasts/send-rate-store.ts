/**
 * Send-rate buckets (docs/broadcasts.md, "Pacing"): one item per SES account
 * (a region of the deployment) and one per Postlane account with a send rate.
 * Each holds only `tat`, the theoretical arrival time of GCRA (epoch ms): the
 * moment the bucket's rate has paid for every message reserved so far.
 * Reserving time is a conditional update with no read before it; DynamoDB
 * applies writes to one item one at a time, so concurrent workers get
 * disjoint windows.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionFailure, tableName, updateIf } from '#shared/platform/dynamodb/client.ts';

export interface BucketKey {
  pk: string;
  sk: string;
}

/** The SES account's bucket: `scope` names it (the region; locally also the emulator), never an account, so it is written in the local region. */
export const sesRateKey = (scope: string): BucketKey => ({ pk: 'SYSTEM#SES_RATE', sk: scope });

/** The account's bucket, beside its account item, so it is written in the account's home region like every write of the account. */
export const accountRateKey = (accountId: string): BucketKey => ({ pk: accountId, sk: 'SEND_RATE' });

/** A window of the bucket's time that is now the caller's to send in, or the time to ask again. */
export type BucketReservation = { start: number; end: number } | { retryAt: number };

/** `tat` as the last reservation of this container saw it: picks which of the two writes to try first. */
const lastSeen = new Map<string, number>();
const memoKey = (key: BucketKey) => `${key.pk}/${key.sk}`;

/**
 * Reserves `costMs` of the bucket's time, starting when everything reserved
 * before is paid for (or now, when the bucket is idle), unless that start is
 * more than `maxWaitMs` away: then nothing is reserved and `retryAt` says when
 * the start would be near enough. One UpdateItem when this container guessed
 * the bucket's state right, two when it did not.
 */
export async function reserveBucketTime(key: BucketKey, costMs: number, now: number, maxWaitMs: number): Promise<BucketReservation> {
  const seen = lastSeen.get(memoKey(key)) ?? 0;
  // `tat` only grows (a give-back is made only while nobody reserved after it, and updates the memo): a backlog this container saw reaching past the wait is still there, so learning it again needs no write.
  if (seen > now + maxWaitMs) return { retryAt: seen - maxWaitMs };
  let busy = seen >= now;
  for (let attempt = 0; attempt < 4; attempt++) {
    const outcome = busy ? await extendBacklog(key, costMs, now, maxWaitMs) : await startWhenIdle(key, costMs, now);
    if ('end' in outcome) {
      lastSeen.set(memoKey(key), outcome.end);
      return { start: outcome.end - costMs, end: outcome.end };
    }
    const { tat } = outcome;
    if (tat > now + maxWaitMs) {
      lastSeen.set(memoKey(key), tat);
      return { retryAt: tat - maxWaitMs };
    }
    busy = tat >= now;
  }
  // Four writes each lost a race between idle and busy: contended enough to come back a little later.
  return { retryAt: now + maxWaitMs };
}

/** The bucket has a backlog ending within `maxWaitMs`: the reservation joins its end. */
function extendBacklog(key: BucketKey, costMs: number, now: number, maxWaitMs: number) {
  return reserve(key, 'SET tat = tat + :cost', 'tat BETWEEN :now AND :latest', { ':cost': costMs, ':now': now, ':latest': now + maxWaitMs });
}

/** The bucket is idle (or new): the reservation starts now. */
function startWhenIdle(key: BucketKey, costMs: number, now: number) {
  return reserve(key, 'SET tat = :end', 'attribute_not_exists(tat) OR tat < :now', { ':end': now + costMs, ':now': now });
}

/** The new `tat` when the condition held, else the bucket's current one (0 for a bucket never used). */
async function reserve(key: BucketKey, update: string, condition: string, values: Record<string, number>): Promise<{ end: number } | { tat: number }> {
  try {
    const { Attributes } = await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: key,
        UpdateExpression: update,
        ConditionExpression: condition,
        ExpressionAttributeValues: values,
        ReturnValues: 'UPDATED_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { end: Number(Attributes?.tat) };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    // The document client leaves the returned item in DynamoDB's wire format.
    const old = (error as { Item?: Record<string, { N?: string }> }).Item;
    return { tat: Number(old?.tat?.N ?? 0) };
  }
}

/**
 * Gives back a reservation that will not be used (the other bucket refused),
 * only while nobody reserved after it: taking time back from under a later
 * window could let two windows overlap. Otherwise the time stays spent,
 * which only ever slows sending down.
 */
export async function returnBucketTime(key: BucketKey, reservation: { start: number; end: number }): Promise<void> {
  const returned = await updateIf({
    Key: key,
    UpdateExpression: 'SET tat = :start',
    ConditionExpression: 'tat = :end',
    ExpressionAttributeValues: { ':start': reservation.start, ':end': reservation.end },
  });
  if (returned) lastSeen.set(memoKey(key), reservation.start);
}
