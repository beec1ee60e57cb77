import { DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactGetCommand,
  TransactWriteCommand,
  UpdateCommand,
  type DeleteCommandInput,
  type QueryCommandInput,
  type UpdateCommandInput,
  type QueryCommandOutput,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { awsConnection, config } from '#shared/platform/config.ts';
import { DEFAULT_HOME_REGION, DEPLOYMENT_REGIONS, knownHome, localRegion, rememberHome, routesToHome } from './regions.ts';
import { accountKey, HOME_REGION_ATTRIBUTE } from './account-item.ts';
import { ConflictError } from '#shared/platform/errors.ts';

/** Exported for the tests and the benchmark, which attach their own middleware (faults, metering) to its stack. */
export const dynamo = new DynamoDBClient({
  ...awsConnection(config.DYNAMODB_ENDPOINT),
  maxAttempts: 4,
});

const DOCUMENT_OPTIONS = { marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false } };

export const tableName = config.TABLE_NAME;

/** One region's replica of the table: a global table keeps one name in every region. */
export interface Replica {
  region: string;
  client: DynamoDBClient;
  documents: DynamoDBDocumentClient;
}

const replicas = new Map<string, Replica>([
  [config.AWS_REGION, { region: config.AWS_REGION, client: dynamo, documents: DynamoDBDocumentClient.from(dynamo, DOCUMENT_OPTIONS) }],
]);

/** Locally one DynamoDB Local holds a table per simulated region (DYNAMODB_REPLICA_TABLES); in AWS the name is the same everywhere. */
const LOCAL_REPLICA_TABLES = new Map(
  (config.DYNAMODB_REPLICA_TABLES ?? '')
    .split(',')
    .filter((entry) => entry.includes('='))
    .map((entry) => entry.split('=').map((part) => part.trim()) as [string, string]),
);

/** The replica in `region`, its client made on first use. */
export function replicaFor(region: string): Replica {
  let replica = replicas.get(region);
  if (!replica) {
    const client = new DynamoDBClient({ ...awsConnection(config.DYNAMODB_ENDPOINT), region, maxAttempts: 4 });
    const localTable = LOCAL_REPLICA_TABLES.get(region);
    if (localTable)
      client.middlewareStack.add(
        (next) => async (args) => {
          renameTables(args.input as Record<string, any>, tableName, localTable);
          const result = await next(args);
          renameTables(result.output as Record<string, any>, localTable, tableName);
          return result;
        },
        { step: 'initialize', priority: 'high', name: 'localReplicaTable' },
      );
    replica = { region, client, documents: DynamoDBDocumentClient.from(client, DOCUMENT_OPTIONS) };
    replicas.set(region, replica);
  }
  return replica;
}

/** Where requests and answers name the table: the top level, per transaction item, and as the key of batch maps. */
function renameTables(message: Record<string, any> | undefined, from: string, to: string): void {
  if (!message) return;
  if (message.TableName === from) message.TableName = to;
  for (const item of message.TransactItems ?? [])
    for (const operation of Object.values(item) as Record<string, unknown>[]) if (operation.TableName === from) operation.TableName = to;
  for (const map of ['RequestItems', 'Responses', 'UnprocessedKeys', 'UnprocessedItems'] as const) {
    if (message[map]?.[from] === undefined) continue;
    message[map][to] = message[map][from];
    delete message[map][from];
  }
}

type Command = { input: Record<string, any> };

/** Writes, and reads strongly consistent, which is how the code reads what guards a write. */
function writesOrGuards(command: Command): boolean {
  const { input } = command;
  return (
    command instanceof PutCommand ||
    command instanceof UpdateCommand ||
    command instanceof DeleteCommand ||
    command instanceof TransactWriteCommand ||
    command instanceof BatchWriteCommand ||
    command instanceof TransactGetCommand ||
    input.ConsistentRead === true ||
    (command instanceof BatchGetCommand && Object.values(input.RequestItems ?? {}).some((request: any) => request.ConsistentRead === true))
  );
}

const ACCOUNT_IN_KEY = /^(acc_[0-9A-Za-z]+)(?:#|$)/;

/** The account whose items a call names (every account-scoped key starts with its id), or undefined for the few global items. */
function accountOf(input: Record<string, any>): string | undefined {
  const keys: unknown[] = [input.Item?.pk, input.Key?.pk, ...Object.values(input.ExpressionAttributeValues ?? {})];
  for (const item of input.TransactItems ?? []) for (const operation of Object.values(item) as any[]) keys.push(operation.Item?.pk, operation.Key?.pk);
  for (const request of Object.values(input.RequestItems ?? {}) as any[]) {
    if (Array.isArray(request)) for (const write of request) keys.push(write.PutRequest?.Item?.pk, write.DeleteRequest?.Key?.pk);
    else for (const key of request.Keys ?? []) keys.push(key.pk);
  }
  const accounts = new Set(keys.flatMap((key) => (typeof key === 'string' ? (ACCOUNT_IN_KEY.exec(key)?.[1] ?? []) : [])));
  if (accounts.size > 1) throw new Error(`One DynamoDB call names the items of ${accounts.size} accounts; each account has its own home region`);
  return [...accounts][0];
}

/**
 * The account's home as the local replica knows it (a plain read: the home
 * changes only by `account move`); an account not replicated here yet is
 * looked for in the other replicas. Outside a request, each call asks again.
 */
async function lookUpHome(accountId: string): Promise<string> {
  const local = localRegion();
  for (const region of [local, ...DEPLOYMENT_REGIONS.filter((other) => other !== local)]) {
    const { Item } = await replicaFor(region).documents.send(
      new GetCommand({
        TableName: tableName,
        Key: accountKey(accountId),
        ProjectionExpression: '#region',
        ExpressionAttributeNames: { '#region': HOME_REGION_ATTRIBUTE },
      }),
    );
    if (!Item) continue;
    const home = typeof Item[HOME_REGION_ATTRIBUTE] === 'string' ? (Item[HOME_REGION_ATTRIBUTE] as string) : DEFAULT_HOME_REGION;
    rememberHome(accountId, home);
    return home;
  }
  return local;
}

/** The account's home region: learnt already in this invocation, else read as the key check reads it. */
export async function homeRegionOf(accountId: string): Promise<string> {
  return knownHome(accountId) ?? (await lookUpHome(accountId));
}

/** Which replica a call goes to (docs/regions.md): the account's home for writes and guarding reads, else the local one. */
async function replicaOf(command: Command): Promise<Replica> {
  const local = localRegion();
  if (!routesToHome() || !writesOrGuards(command)) return replicaFor(local);
  const accountId = accountOf(command.input);
  if (!accountId) return replicaFor(local);
  return replicaFor(await homeRegionOf(accountId));
}

/**
 * The table, as every store module uses it: each call is sent to the replica
 * `replicaOf` picks from the keys it names, so no store module can write an
 * account's items outside its home region.
 */
export const db = DynamoDBDocumentClient.from(dynamo, DOCUMENT_OPTIONS);
db.send = (async (command: Command, ...rest: unknown[]) => {
  const { documents } = await replicaOf(command);
  return (documents.send as (...args: unknown[]) => Promise<unknown>)(command, ...rest);
}) as typeof db.send;

export type TransactItems = NonNullable<TransactWriteCommandInput['TransactItems']>;

/** A transaction's Put of an item that must not exist yet. */
export function putNew(item: Record<string, unknown>): TransactItems[number] {
  return { Put: { TableName: tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' } };
}

/** A transaction's Delete that holds only while the item is still at the version the caller read. */
export function deleteAtVersion(key: Record<string, unknown>, version: number): TransactItems[number] {
  return { Delete: { TableName: tableName, Key: key, ConditionExpression: 'version = :expected', ExpressionAttributeValues: { ':expected': version } } };
}

/** One reason per transaction item, in order: `ConditionalCheckFailed`, `TransactionConflict` or `None`. */
export type CancellationCodes = string[];

export class TransactionCancelled extends Error {
  override readonly name = 'TransactionCancelled';
  constructor(readonly reasons: CancellationCodes) {
    super(`Transaction cancelled: ${reasons.join(', ')}`);
  }
}

/**
 * True when a transaction was cancelled by its first item's condition: the
 * write it exists for (a new id already taken, an item gone or changed) was
 * refused, rather than a check or counter beside it.
 */
export function firstConditionFailed(error: unknown): error is TransactionCancelled {
  return error instanceof TransactionCancelled && error.reasons[0] === 'ConditionalCheckFailed';
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
      const onlyConflicts =
        reasons.some((code) => code === 'TransactionConflict') && reasons.every((code) => code === 'TransactionConflict' || code === 'None');
      if (!onlyConflicts) throw new TransactionCancelled(reasons);
      // Still losing after the retries: the items are contended, the request itself is fine; 409 like every other "changed concurrently".
      if (attempt >= CONFLICT_RETRIES) throw new ConflictError('CONFLICT', 'The data changed concurrently; retry the request');
      await sleep(jitteredBackoff(attempt));
    }
  }
}

/** True when a single write met a transaction in progress on its item, which DynamoDB refuses rather than queues. */
export function isTransactionConflict(error: unknown): boolean {
  return error instanceof Error && error.name === 'TransactionConflictException';
}

/**
 * A single write of an item that transactions write too (a key item, a
 * counter): retried, like `transactWrite`, while it meets one in progress,
 * which holds the item for milliseconds. The SDK does not retry these itself.
 */
export async function outlastingTransactions<T>(write: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (!isTransactionConflict(error) || attempt >= CONFLICT_RETRIES) throw error;
      await sleep(jitteredBackoff(attempt));
    }
  }
}

export function jitteredBackoff(attempt: number): number {
  const base = config.DYNAMODB_BACKOFF_MS;
  return Math.random() * Math.min(40 * base, base * 2 ** attempt);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * One item by key, read consistently (a read after the caller's own write must see it) and mapped by its
 * entity's mapper: `getMapped(contactKey(accountId, id), toContact)`; undefined when there is none.
 */
export async function getMapped<T>(key: Record<string, unknown>, map: (item: Record<string, unknown>) => T): Promise<T | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }));
  return Item ? map(Item) : undefined;
}

/** True when the error is DynamoDB refusing a write because its condition did not hold. */
export function isConditionFailure(error: unknown): boolean {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}

/** An UpdateItem on the table whose condition may not hold: true when applied, false when the condition refused it. */
export async function updateIf(input: Omit<UpdateCommandInput, 'TableName'>): Promise<boolean> {
  return (await unlessRefused(db.send(new UpdateCommand({ ...input, TableName: tableName })))) !== undefined;
}

/** An UpdateItem whose condition may not hold: the item as written, or undefined when the condition refused it. */
export async function updateReturning(input: Omit<UpdateCommandInput, 'TableName' | 'ReturnValues'>): Promise<Record<string, unknown> | undefined> {
  return (await unlessRefused(db.send(new UpdateCommand({ ...input, TableName: tableName, ReturnValues: 'ALL_NEW' }))))?.Attributes;
}

/** A DeleteItem on the table whose condition may not hold: true when applied, false when the condition refused it. */
export async function deleteIf(input: Omit<DeleteCommandInput, 'TableName'>): Promise<boolean> {
  return (await unlessRefused(db.send(new DeleteCommand({ ...input, TableName: tableName })))) !== undefined;
}

/** The write's output, or undefined when DynamoDB refused it for its condition; any other failure propagates. */
async function unlessRefused<T>(write: Promise<T>): Promise<T | undefined> {
  try {
    return await write;
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

/** A query's pages in order, following DynamoDB's 1 MB pages (or `Limit`), for readers that may stop early. */
export async function* queryPages(input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>): AsyncGenerator<Record<string, unknown>[]> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page: QueryCommandOutput = await db.send(new QueryCommand({ ...input, TableName: tableName, ExclusiveStartKey: startKey }));
    yield page.Items ?? [];
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}

/** Every item a query matches, following DynamoDB's 1 MB pages; for collections bounded by design (keys, audiences). */
export async function queryAll(input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for await (const page of queryPages(input)) items.push(...page);
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
