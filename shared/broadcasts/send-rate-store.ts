/**
 * Send-rate buckets (docs/broadcasts.md, "Pacing"): one item per SES account
 * (a region of the deployment) and one per Postlane account with a send rate.
 * Each holds only `tat`, the theoretical arrival time of GCRA (epoch ms): the
 * moment the bucket's rate has paid for every message reserved so far.
 * Reserving time is a conditional update with no read before it
 * (shared/platform/dynamodb/conditional-counter.ts); DynamoDB applies writes
 * to one item one at a time, so concurrent workers get disjoint windows.
 */
import { updateIf } from '#shared/platform/dynamodb/client.ts';
import { countIf, inRounds, NEXT_ROUND, type CounterWrite } from '#shared/platform/dynamodb/conditional-counter.ts';

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
  return inRounds<BucketReservation>(
    async () => {
      const reserved = await countIf({ key, ...(busy ? extendBacklog(costMs, now, maxWaitMs) : startWhenIdle(costMs, now)) });
      if (reserved.admitted) {
        const end = Number(reserved.item.tat);
        lastSeen.set(memoKey(key), end);
        return { start: end - costMs, end };
      }
      // A bucket never used has no `tat`.
      const tat = Number(reserved.old?.tat ?? 0);
      if (tat > now + maxWaitMs) {
        lastSeen.set(memoKey(key), tat);
        return { retryAt: tat - maxWaitMs };
      }
      busy = tat >= now;
      return NEXT_ROUND;
    },
    // Four writes each lost a race between idle and busy: contended enough to come back a little later.
    { rounds: 4, exhausted: () => ({ retryAt: now + maxWaitMs }) },
  );
}

type BucketWrite = Pick<CounterWrite, 'update' | 'limit' | 'values'>;

/** The bucket has a backlog ending within `maxWaitMs`: the reservation joins its end. */
function extendBacklog(costMs: number, now: number, maxWaitMs: number): BucketWrite {
  return {
    update: 'SET tat = tat + :cost',
    limit: { backlogWithinWait: 'tat BETWEEN :now AND :latest' },
    values: { ':cost': costMs, ':now': now, ':latest': now + maxWaitMs },
  };
}

/** The bucket is idle (or new): the reservation starts now. */
function startWhenIdle(costMs: number, now: number): BucketWrite {
  return { update: 'SET tat = :end', limit: { idle: 'attribute_not_exists(tat) OR tat < :now' }, values: { ':end': now + costMs, ':now': now } };
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
