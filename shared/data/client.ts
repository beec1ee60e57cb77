import { DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  QueryCommand,
  TransactWriteCommand,
  type QueryCommandInput,
  type QueryCommandOutput,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { config, localCredentials } from '#shared/config.ts';

const credentials = localCredentials(config.DYNAMODB_ENDPOINT);

export const dynamo = new DynamoDBClient({
  region: config.AWS_REGION,
  ...(config.DYNAMODB_ENDPOINT ? { endpoint: config.DYNAMODB_ENDPOINT } : {}),
  ...(credentials ? { credentials } : {}),
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
