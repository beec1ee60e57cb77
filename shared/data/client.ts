import { DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
  type QueryCommandInput,
  type UpdateCommandInput,
  type QueryCommandOutput,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { awsConnection, config } from '#shared/config.ts';
import { ConflictError } from '#shared/errors.ts';

export const dynamo = new DynamoDBClient({
  ...awsConnection(config.DYNAMODB_ENDPOINT),
  maxAttempts: 4,
});

/**
 * Tests only: decides per DynamoDB command (`PutItemCommand`, `TransactWriteItemsCommand`)
 * whether it fails, before it reaches DynamoDB or after DynamoDB applied it and the
 * answer was lost, for faults DynamoDB Local cannot produce on demand.
 */
export type FaultHook = (command: string, input: Record<string, unknown>) => Fault | undefined;

/**
 * `error`: the call fails (after DynamoDB applied it, with `after`).
 * `unprocessed`: a BatchGetItem or BatchWriteItem is answered in part, as
 * under throttling: DynamoDB processes the first half of its requests
 * (`half`, rounded up: a single one is processed) or `none` of them, and
 * returns the rest as `UnprocessedKeys` / `UnprocessedItems`.
 */
export type Fault = { error: Error; after?: boolean } | { unprocessed: 'half' | 'none' };

let faultHook: FaultHook | undefined;

export function setFaultHook(hook: FaultHook | undefined): void {
  faultHook = hook;
}

// Initialize step: ahead of the SDK's own retries, so a fault stands for one that outlasted them.
dynamo.middlewareStack.add((next, context) => async (args) => {
  const fault = faultHook?.(context.commandName ?? '', args.input as Record<string, unknown>);
  if (!fault) return next(args);
  if ('unprocessed' in fault) return answerInPart(next, args, context.commandName ?? '', fault.unprocessed);
  if (fault.after) await next(args);
  throw fault.error;
}, { step: 'initialize', name: 'faultHook' });

type BatchRequests = Record<string, { Keys?: unknown[] } | unknown[]>;

/** Sends part of a batch call's requests (in DynamoDB's wire format: the document client marshalled them already) and returns the rest unprocessed. */
async function answerInPart<Output extends object>(
  next: (args: { input: object }) => Promise<{ output: Output; response: unknown }>,
  args: { input: object },
  command: string,
  processed: 'half' | 'none',
): Promise<{ output: Output; response: unknown }> {
  const input = args.input as { RequestItems: BatchRequests };
  const [table, requests] = Object.entries(input.RequestItems)[0]!;
  const reads = command === 'BatchGetItemCommand';
  const all = reads ? (requests as { Keys: unknown[] }).Keys : requests as unknown[];
  const sent = processed === 'half' ? all.slice(0, Math.ceil(all.length / 2)) : [];
  const left = all.slice(sent.length);
  const unprocessed = { [table]: reads ? { ...requests, Keys: left } : left };
  if (sent.length === 0) {
    const output = { $metadata: {}, ...(reads ? { Responses: { [table]: [] }, UnprocessedKeys: unprocessed } : { UnprocessedItems: unprocessed }) };
    return { output: output as unknown as Output, response: {} };
  }
  const result = await next({ ...args, input: { ...input, RequestItems: { [table]: reads ? { ...requests, Keys: sent } : sent } } });
  return { ...result, output: { ...result.output, ...(reads ? { UnprocessedKeys: unprocessed } : { UnprocessedItems: unprocessed }) } };
}

export const db = DynamoDBDocumentClient.from(dynamo, {
  marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false },
});

export const tableName = config.TABLE_NAME;

/** What DynamoDB calls cost since the meter was started or reset. */
export interface DynamoUsage {
  /** Calls to DynamoDB (an SDK retry of one call counts once). */
  roundTrips: number;
  readUnits: number;
  writeUnits: number;
}

export interface DynamoMeter {
  usage(): DynamoUsage;
  reset(): void;
}

type Capacity = { CapacityUnits?: number; ReadCapacityUnits?: number; WriteCapacityUnits?: number };

/** Operations DynamoDB bills in write units, also for the items they only check. */
const WRITE_OPERATIONS = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'BatchWriteItemCommand', 'TransactWriteItemsCommand']);

/**
 * Counts every call of this process's DynamoDB client and sums the capacity
 * it consumed, by asking each call for `ReturnConsumedCapacity: TOTAL`. Only
 * the benchmark turns it on (it measures round trips and units per request);
 * handlers never do, so deployed requests carry no extra parameter.
 */
export function meterDynamoDb(): DynamoMeter {
  let usage: DynamoUsage = { roundTrips: 0, readUnits: 0, writeUnits: 0 };
  dynamo.middlewareStack.add(
    (next, context) => async (args) => {
      (args.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity = 'TOTAL';
      usage.roundTrips++;
      const result = await next(args);
      const consumed = (result.output as { ConsumedCapacity?: Capacity | Capacity[] }).ConsumedCapacity;
      const writes = WRITE_OPERATIONS.has(context.commandName ?? '');
      for (const capacity of [consumed ?? []].flat()) {
        // DynamoDB Local reports only the total; AWS splits reads from writes in transactions.
        const read = capacity.ReadCapacityUnits ?? (writes ? 0 : capacity.CapacityUnits ?? 0);
        const write = capacity.WriteCapacityUnits ?? (writes ? capacity.CapacityUnits ?? 0 : 0);
        usage.readUnits += read;
        usage.writeUnits += write;
      }
      return result;
    },
    { step: 'initialize', priority: 'low', name: 'postlaneDynamoMeter' },
  );
  return {
    usage: () => ({ ...usage }),
    reset: () => {
      usage = { roundTrips: 0, readUnits: 0, writeUnits: 0 };
    },
  };
}

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
 * same items (DynamoDB cancels instead of queueing), then 409 `CONFLICT`. A
 * cancellation for any other reason surfaces as `TransactionCancelled` with
 * per-item codes for the caller to turn into a domain error.
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
      if (!onlyConflicts) throw new TransactionCancelled(reasons);
      // Still losing after the retries: the items are contended, the request itself is fine; 409 like every other "changed concurrently".
      if (attempt >= CONFLICT_RETRIES) throw new ConflictError('CONFLICT', 'The data changed concurrently; retry the request');
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
