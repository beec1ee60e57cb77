/**
 * The conditional counter every limited count of the table is built on (a
 * public form's rate windows, OTP windows, an API key's request windows,
 * send-rate buckets, the monthly usage): one UpdateItem whose condition is the
 * limit, with no read before it. DynamoDB applies the writes of one item one
 * at a time, so writers racing on every Lambda instance can never count past
 * the limit. Its parts, by name:
 *
 * - the update (`CounterWrite.update`): what counting changes on the item;
 * - the limit (`CounterWrite.limit`): the write's condition, clause by clause,
 *   the limit itself and the window (bucket, version) the write expects;
 * - the refusal (`CounterRefusal.old`): the item as the condition found it,
 *   which DynamoDB returns with the refusal at no capacity cost, so the caller
 *   learns without a read whether the limit was reached or the window moved;
 * - the roll-over round (`inRounds`, `NEXT_ROUND`): when the window moved
 *   rather than the limit was reached, another write with what the refusal
 *   taught, a bounded number of times.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { db, isConditionFailure, jitteredBackoff, outlastingTransactions, sleep, tableName } from './client.ts';

export type CounterItem = Record<string, unknown>;

/** One conditional UpdateItem of a counter item. */
export interface CounterWrite {
  /** The counter item's key: the table's partition and sort key. */
  key: { pk: string; sk: string };
  /** The UpdateExpression: an increment, a window's first count, a reservation. */
  update: string;
  /** The condition, as named clauses that must all hold; an undefined clause (a limit the plan does not have) is left out. */
  limit: Record<string, string | undefined>;
  /** The placeholders the expressions may use: those neither uses are left out of the request, which DynamoDB would refuse. */
  names?: Record<string, string>;
  values: Record<string, unknown>;
  /** What an admitted write returns: the attributes it changed (the default), the whole item, or nothing. */
  returning?: 'UPDATED_NEW' | 'ALL_NEW' | 'NONE';
}

export interface CounterAdmission {
  admitted: true;
  /** The item's attributes as written (`returning`). */
  item: CounterItem;
}

export interface CounterRefusal {
  admitted: false;
  /** The item as the refused condition found it; undefined when there was none. */
  old: CounterItem | undefined;
}

/** The limit's clauses joined: each in parentheses, as a clause may hold an OR. */
function conditionOf(limit: CounterWrite['limit']): string {
  const clauses = Object.values(limit).filter((clause): clause is string => clause !== undefined && clause !== '');
  return clauses.length === 1 ? clauses[0]! : clauses.map((clause) => `(${clause})`).join(' AND ');
}

/** The entries of `placeholders` that `expressions` name. */
function used<T>(placeholders: Record<string, T> | undefined, expressions: string): Record<string, T> | undefined {
  if (!placeholders) return undefined;
  const named = new Set(expressions.match(/[:#][A-Za-z0-9_]+/g));
  const kept = Object.entries(placeholders).filter(([placeholder]) => named.has(placeholder));
  return kept.length > 0 ? Object.fromEntries(kept) : undefined;
}

/**
 * The update under its limit: admitted with the item's returned attributes,
 * or refused with the item as it was.
 *
 * `const counted = await countIf({ key, update: 'ADD n :one', limit: { perDay: 'n < :most' }, values: { ':one': 1, ':most': 5 } })`
 */
export async function countIf(write: CounterWrite): Promise<CounterAdmission | CounterRefusal> {
  const condition = conditionOf(write.limit);
  const expressions = `${write.update} ${condition}`;
  const names = used(write.names, expressions);
  const values = used(write.values, expressions);
  try {
    // Counter items also ride in transactions (a key's change with its audit event, a refund with its record): outlast them.
    const { Attributes } = await outlastingTransactions(() =>
      db.send(
        new UpdateCommand({
          TableName: tableName,
          Key: write.key,
          UpdateExpression: write.update,
          ConditionExpression: condition,
          ...(names ? { ExpressionAttributeNames: names } : {}),
          ...(values ? { ExpressionAttributeValues: values } : {}),
          ReturnValues: write.returning ?? 'UPDATED_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ),
    );
    return { admitted: true, item: Attributes ?? {} };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    // The document client translates the answer's attributes but leaves a refused write's item in DynamoDB's wire format.
    const wire = (error as { Item?: Parameters<typeof unmarshall>[0] }).Item;
    return { admitted: false, old: wire ? unmarshall(wire) : undefined };
  }
}

/**
 * What a round answers when its write was refused for something the next
 * write can take into account (the window, bucket or version moved on; less
 * is left than was asked for) rather than refused for good.
 */
export const NEXT_ROUND = Symbol('next round');

export interface RoundOptions<T> {
  /** Most rounds: enough for any interleaving the counter's writers can produce, so hitting it means heavy contention. */
  rounds: number;
  /** The answer when the last round, too, asked for another. */
  exhausted: () => T;
  /** Wait a jittered backoff before each round after the first, for writers that race on the same refusal. */
  backoff?: boolean;
}

/**
 * The roll-over round: runs `round` until it answers (admitted, or refused by
 * the limit) rather than asking for the next round, at most `rounds` times.
 */
export async function inRounds<T>(round: (index: number) => Promise<T | typeof NEXT_ROUND>, options: RoundOptions<T>): Promise<T> {
  for (let index = 0; index < options.rounds; index++) {
    if (options.backoff && index > 0) await sleep(jitteredBackoff(index));
    const answer = await round(index);
    if (answer !== NEXT_ROUND) return answer;
  }
  return options.exhausted();
}
