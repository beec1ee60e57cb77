import { DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DynamoDBDocumentClient,
  QueryCommand,
  type BatchGetCommandOutput,
  type BatchWriteCommandInput,
  type BatchWriteCommandOutput,
  TransactWriteCommand,
  UpdateCommand,
  type QueryCommandInput,
  type UpdateCommandInput,
  type QueryCommandOutput,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { awsConnection, config } from '#shared/config.ts';

/** Exported for the tests and the benchmark, which attach their own middleware (faults, metering) to its stack. */
export const dynamo = new DynamoDBClient({
  ...awsConnection(config.DYNAMODB_ENDPOINT),
  maxAttempts: 4,
});

export const db = DynamoDBDocumentClient.from(dynamo, {
  marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false },
});

export const tableName = config.TABLE_NAME;

export type TransactItems = NonNullable<TransactWriteCommandInput['TransactItems']>;

/** One reason per transaction item, in order: `ConditionalCheckFailed`, `TransactionConflict` or `None`. */
export type CancellationCodes = string[];

export class TransactionCancelled extends Error {
  override readonly name = 'TransactionCancelled';
  constructor(readonly reasons: CancellationCodes) {
    super(`Transaction cancelled: ${reasons.join(', ')}`);
  }
}

/** Enough for a hundred writers racing on one counter item (about 5 s of backoff in the worst case). */
const CONFLICT_RETRIES = 10;

/**
 * Runs a transaction, retrying while it loses only to other transactions on the
 * same items (DynamoDB cancels instead of queueing). A cancellation for any other
 * reason surfaces as `TransactionCancelled` with per-item codes for the caller
 * to turn into a domain error.
 */
export async function transactWrite(items: TransactItems): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await db.send(new TransactWriteCommand({ TransactItems: items }));
      return;
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const reasons = (error.CancellationReasons ?? []).map((reason) => reason.Code ?? 'None');
      const onlyConflicts = reasons.some((code) => code === 'TransactionConflict')
        && reasons.every((code) => code === 'TransactionConflict' || code === 'None');
      if (!onlyConflicts || attempt >= CONFLICT_RETRIES) throw new TransactionCancelled(reasons);
      await sleep(jitteredBackoff(attempt));
    }
  }
}

export function jitteredBackoff(attempt: number): number {
  return Math.random() * Math.min(1000, 25 * 2 ** attempt);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** True when the error is DynamoDB refusing a write because its condition did not hold. */
export function isConditionFailure(error: unknown): boolean {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}

/** An UpdateItem on the table whose condition may not hold: true when applied, false when the condition refused it. */
export async function updateIf(input: Omit<UpdateCommandInput, 'TableName'>): Promise<boolean> {
  try {
    await db.send(new UpdateCommand({ ...input, TableName: tableName }));
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** Every item a query matches, following DynamoDB's 1 MB pages; for collections bounded by design (keys, audiences). */
export async function queryAll(input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page: QueryCommandOutput = await db.send(new QueryCommand({ ...input, TableName: tableName, ExclusiveStartKey: startKey }));
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}

/** One numbered page of a query, and how many items matched while reading it. */
export interface NumberedPage {
  items: Record<string, unknown>[];
  /** Matches counted: every one in the range unless `truncated`. */
  matched: number;
  /** A filtered read stopped at its scan limit before the end of the range. */
  truncated: boolean;
}

/**
 * Items `offset` to `offset + limit` of a query, in its order (the API numbers
 * pages; DynamoDB has no offset). Unfiltered: reads only up to `offset + limit`
 * items. With a FilterExpression: examines the range up to `scanLimit` items
 * so that `matched` counts every match, and says when it stopped early.
 */
export async function queryPage(
  input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey' | 'Limit'>,
  offset: number,
  limit: number,
  scanLimit: number,
): Promise<NumberedPage> {
  const filtered = input.FilterExpression !== undefined;
  const items: Record<string, unknown>[] = [];
  let matched = 0;
  let examined = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const remaining = filtered ? scanLimit - examined : offset + limit - matched;
    const response: QueryCommandOutput = await db.send(new QueryCommand({ ...input, TableName: tableName, Limit: remaining, ExclusiveStartKey: startKey }));
    examined += response.ScannedCount ?? 0;
    for (const item of response.Items ?? []) {
      if (matched >= offset && matched < offset + limit) items.push(item);
      matched++;
    }
    startKey = response.LastEvaluatedKey;
  } while (startKey && (filtered ? examined < scanLimit : matched < offset + limit));
  return { items, matched, truncated: filtered && startKey !== undefined };
}

const BATCH_GET_LIMIT = 100;

/**
 * Items by key, strongly consistent, in any order: 100 keys per BatchGetItem
 * (its limit, chunks in parallel), retrying keys DynamoDB leaves unprocessed.
 */
export async function batchGetAll(requested: Record<string, string>[]): Promise<Record<string, unknown>[]> {
  // BatchGetItem refuses a request that names one key twice.
  const keys = [...new Map(requested.map((key) => [`${key.pk}\u0000${key.sk}`, key])).values()];
  const chunks: Record<string, string>[][] = [];
  for (let start = 0; start < keys.length; start += BATCH_GET_LIMIT) chunks.push(keys.slice(start, start + BATCH_GET_LIMIT));
  const results = await Promise.all(chunks.map(async (chunk) => {
    const found: Record<string, unknown>[] = [];
    let wanted: Record<string, unknown>[] | undefined = chunk;
    for (let attempt = 0; wanted && wanted.length > 0; attempt++) {
      if (attempt > 0) await sleep(Math.min(1000, 25 * 2 ** attempt));
      const response: BatchGetCommandOutput = await db.send(new BatchGetCommand({ RequestItems: { [tableName]: { Keys: wanted, ConsistentRead: true } } }));
      found.push(...(response.Responses?.[tableName] ?? []));
      wanted = response.UnprocessedKeys?.[tableName]?.Keys;
    }
    return found;
  }));
  return results.flat();
}

const BATCH_WRITE_LIMIT = 25;
const UNPROCESSED_WRITE_RETRIES = 8;

export type WriteRequest = NonNullable<BatchWriteCommandInput['RequestItems']>[string][number];

/** Puts and deletes, 25 per BatchWriteItem (its limit, chunks in parallel), retrying what DynamoDB leaves unprocessed. */
export async function batchWriteAll(requests: readonly WriteRequest[]): Promise<void> {
  const chunks: WriteRequest[][] = [];
  for (let start = 0; start < requests.length; start += BATCH_WRITE_LIMIT) chunks.push(requests.slice(start, start + BATCH_WRITE_LIMIT));
  await Promise.all(chunks.map(async (chunk) => {
    let pending: WriteRequest[] | undefined = chunk;
    for (let attempt = 0; pending && pending.length > 0; attempt++) {
      if (attempt > UNPROCESSED_WRITE_RETRIES) throw new Error(`DynamoDB left ${pending.length} writes unprocessed`);
      if (attempt > 0) await sleep(jitteredBackoff(attempt));
      const response: BatchWriteCommandOutput = await db.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
      pending = response.UnprocessedItems?.[tableName];
    }
  }));
}
