/**
 * BatchGetItem and BatchWriteItem as callers mean them: every key read, every
 * write applied, or a thrown error. DynamoDB answers a batch in part when it
 * throttles, or past 16 MB of reads, and hands back the rest as
 * `UnprocessedKeys` / `UnprocessedItems`; read as a whole answer, a missing
 * key would be an unknown API key (401), a missing audience (404) or a zero
 * counter. So the rest is asked again with backoff, a bounded number of
 * times, then `BatchIncompleteError` (a 500 the client retries), never a
 * partial answer.
 */
import {
  BatchGetCommand,
  BatchWriteCommand,
  type BatchGetCommandOutput,
  type BatchWriteCommandInput,
  type BatchWriteCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import { db, jitteredBackoff, sleep, tableName } from './client.ts';

/** Keys per BatchGetItem: DynamoDB's limit. Its 16 MB answer limit needs no split: what exceeds it comes back unprocessed. */
const BATCH_GET_LIMIT = 100;
/** Writes per BatchWriteItem: DynamoDB's limit. 25 items of at most 400 KB stay under its 16 MB request limit. */
const BATCH_WRITE_LIMIT = 25;
/**
 * Calls for what is left unprocessed after the first: with `jitteredBackoff`,
 * up to about 4 s of waiting, what AWS's guidance on batch retries and the
 * SDK's own throttling retries (`maxAttempts: 4` on the client) allow together.
 */
export const UNPROCESSED_RETRIES = 8;

export type Key = Record<string, string>;
export type WriteRequest = NonNullable<BatchWriteCommandInput['RequestItems']>[string][number];

/** DynamoDB kept refusing part of a batch after every retry: nothing may be read from the part it answered alone. */
export class BatchIncompleteError extends Error {
  override readonly name = 'BatchIncompleteError';
  constructor(operation: 'BatchGetItem' | 'BatchWriteItem', left: number) {
    super(`${operation} left ${left} requests unprocessed after ${UNPROCESSED_RETRIES} retries`);
  }
}

/** `items` in runs of at most `size`. */
export function chunked<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let start = 0; start < items.length; start += size) chunks.push(items.slice(start, start + size));
  return chunks;
}

/**
 * Items by key, strongly consistent, in any order; a key with no item is
 * simply absent. 100 keys per call, calls in parallel.
 * @example const [key, account] = await batchGetAll([apiKeyKey(a, k), accountKey(a)]);
 */
export async function batchGetAll(requested: readonly Key[]): Promise<Record<string, unknown>[]> {
  // BatchGetItem refuses a request that names one key twice.
  const keys = [...new Map(requested.map((key) => [`${key.pk}\u0000${key.sk}`, key])).values()];
  const results = await Promise.all(
    chunked(keys, BATCH_GET_LIMIT).map(async (chunk) => {
      const found: Record<string, unknown>[] = [];
      let wanted: Record<string, unknown>[] | undefined = chunk;
      for (let attempt = 0; wanted && wanted.length > 0; attempt++) {
        if (attempt > UNPROCESSED_RETRIES) throw new BatchIncompleteError('BatchGetItem', wanted.length);
        if (attempt > 0) await sleep(jitteredBackoff(attempt));
        const response: BatchGetCommandOutput = await db.send(new BatchGetCommand({ RequestItems: { [tableName]: { Keys: wanted, ConsistentRead: true } } }));
        found.push(...(response.Responses?.[tableName] ?? []));
        wanted = response.UnprocessedKeys?.[tableName]?.Keys;
      }
      return found;
    }),
  );
  return results.flat();
}

/**
 * Items of several kinds that one request needs by key: `keys` to read, and
 * `result` making the caller's value from what was found. `readTogether`
 * serves any number of them with one BatchGetItem.
 */
export interface KeyedRead<T> {
  keys: readonly Key[];
  result(found: (key: Key) => Record<string, unknown> | undefined): T;
}

/** `map` of a found item, undefined for none. */
export function mapFound<T>(item: Record<string, unknown> | undefined, map: (item: Record<string, unknown>) => T): T | undefined {
  return item ? map(item) : undefined;
}

type Results<R extends readonly KeyedRead<unknown>[]> = { -readonly [I in keyof R]: R[I] extends KeyedRead<infer T> ? T : never };

/**
 * The items of every read in one round trip (one BatchGetItem per 100 keys),
 * strongly consistent, in the home replica of the account they name.
 * @example const [domain, listed] = await readTogether(domainRead(a, 'example.com'), suppressionsRead(a, emails));
 */
export async function readTogether<R extends readonly KeyedRead<unknown>[]>(...reads: R): Promise<Results<R>> {
  const wanted = reads.flatMap((read) => read.keys);
  const items = wanted.length === 0 ? [] : await batchGetAll(wanted);
  const byKey = new Map(items.map((item) => [`${item.pk}\u0000${item.sk}`, item]));
  return reads.map((read) => read.result((key) => byKey.get(`${key.pk}\u0000${key.sk}`))) as Results<R>;
}

/** Puts and deletes, 25 per call, calls in parallel; every one applied when it returns. */
export async function batchWriteAll(requests: readonly WriteRequest[]): Promise<void> {
  await Promise.all(
    chunked(requests, BATCH_WRITE_LIMIT).map(async (chunk) => {
      let pending: WriteRequest[] | undefined = chunk;
      for (let attempt = 0; pending && pending.length > 0; attempt++) {
        if (attempt > UNPROCESSED_RETRIES) throw new BatchIncompleteError('BatchWriteItem', pending.length);
        if (attempt > 0) await sleep(jitteredBackoff(attempt));
        const response: BatchWriteCommandOutput = await db.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
        pending = response.UnprocessedItems?.[tableName];
      }
    }),
  );
}
