import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionFailure, tableName } from './client.ts';
import { accountScoped } from './partition.ts';
import { useApiKey, type WindowLimits } from '#shared/accounts/api-key-store.ts';
import { PLANS } from '#shared/accounts/plans.ts';

/**
 * Fixed-window counters for whatever must be rate limited: a public form's
 * submissions, one submitter's address (an API key's requests are counted on
 * the key item itself, shared/accounts/api-key-store.ts `useApiKey`). One item per
 * subject and UTC day holds the current window's count and the day's count, so
 * admitting a request costs a single conditional write. The condition is the
 * limit: DynamoDB serialises writes to one item, so every Lambda instance sees
 * the same window and none can admit more than the limit.
 *
 * `sec` holds the current window's number (epoch seconds divided by the window
 * length; for one-second windows, the epoch second) and `secCount` its count.
 */
const windowKey = (subject: WindowSubject, day: string) => ({ pk: accountScoped(subject.accountId, 'RATE', ...subject.parts, day), sk: 'RATE' });

/** Whose events a window counts. */
export interface WindowSubject {
  accountId: string;
  /** Distinct per subject within the account. */
  parts: string[];
}

export interface CounterLimits {
  /** Length of the short window in seconds (1 for the per-second API limit). */
  windowSeconds: number;
  perWindow: number;
  perDay: number | null;
}

/**
 * `window` is the window the event was counted (or refused) in: usually the
 * one of `now`, a later one when another instance had already opened it.
 */
export type CounterOutcome = { admitted: true; windowCount: number; window: number } | { admitted: false; exhausted: 'window' | 'day'; window: number };

/** Counts one event in the subject's window, or reports which limit it would break. */
export async function consumeWindow(subject: WindowSubject, now: Date, limits: CounterLimits): Promise<CounterOutcome> {
  const epochSecond = Math.floor(now.getTime() / 1000);
  let window = Math.floor(epochSecond / limits.windowSeconds);
  const day = now.toISOString().slice(0, 10);
  const key = windowKey(subject, day);
  const dayCondition = limits.perDay === null ? '' : ' AND dayCount < :dayLimit';
  const values = () => ({
    ':one': 1,
    ':window': window,
    ...(limits.perDay === null ? {} : { ':dayLimit': limits.perDay }),
  });

  // Two racing "first event of a new window" writes make one loser retry the
  // increment; a few rounds are ample for any interleaving of two steps.
  for (let round = 0; round < 4; round++) {
    try {
      const { Attributes } = await db.send(
        new UpdateCommand({
          TableName: tableName,
          Key: key,
          UpdateExpression: 'SET secCount = secCount + :one, dayCount = dayCount + :one',
          ConditionExpression: `#sec = :window AND secCount < :windowLimit${dayCondition}`,
          ExpressionAttributeNames: { '#sec': 'sec' },
          ExpressionAttributeValues: { ...values(), ':windowLimit': limits.perWindow },
          ReturnValues: 'UPDATED_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { admitted: true, windowCount: Number(Attributes?.secCount), window };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      // The document client leaves the returned item in DynamoDB's wire format.
      const old = (error as { Item?: Record<string, { N?: string }> }).Item;
      const dayCount = Number(old?.dayCount?.N ?? 0);
      if (limits.perDay !== null && dayCount >= limits.perDay) return { admitted: false, exhausted: 'day', window };
      const storedWindow = Number(old?.sec?.N);
      if (storedWindow === window) return { admitted: false, exhausted: 'window', window };
      if (storedWindow > window) {
        // Another instance (a later request, or a clock a little ahead) already opened a newer window: count in it.
        window = storedWindow;
        continue;
      }
    }
    try {
      await db.send(
        new UpdateCommand({
          TableName: tableName,
          Key: key,
          UpdateExpression: 'SET #sec = :window, secCount = :one, dayCount = if_not_exists(dayCount, :zero) + :one, expiresAt = :expiresAt',
          ConditionExpression: `(attribute_not_exists(#sec) OR #sec < :window)${limits.perDay === null ? '' : ' AND (attribute_not_exists(dayCount) OR dayCount < :dayLimit)'}`,
          ExpressionAttributeNames: { '#sec': 'sec' },
          ExpressionAttributeValues: { ...values(), ':zero': 0, ':expiresAt': epochSecond + 2 * 86_400 },
        }),
      );
      return { admitted: true, windowCount: 1, window };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
  return { admitted: false, exhausted: 'window', window };
}

/** `second`: the epoch second whose window counted (or refused) the request. */
export type WindowOutcome = { admitted: true; secondCount: number; second: number } | { admitted: false; exhausted: 'second' | 'day'; second: number };

/** Counts one request in the API key's per-second and per-day windows, kept on the key item (`useApiKey`), or reports which limit it would break. */
export async function consumeRequest(accountId: string, keyId: string, now: Date, limits: WindowLimits): Promise<WindowOutcome> {
  const use = await useApiKey(accountId, keyId, now, Object.fromEntries(PLANS.map((plan) => [plan, limits])));
  if (use.admitted) return { admitted: true, secondCount: use.secondCount, second: use.second };
  if (use.refused === 'guard') throw new Error(`No API key ${keyId} in account ${accountId}`);
  return { admitted: false, exhausted: use.refused, second: use.second };
}
