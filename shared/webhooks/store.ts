/**
 * Webhook endpoints (`whk_`), their deliveries (`dlv_`) and each delivery's
 * attempts.
 *
 * | item | pk | sk |
 * |---|---|---|
 * | endpoint | `acc_X#WHK` | `whk_W` |
 * | endpoint count | `acc_X#WHK` | `#COUNT` (sorts before every id) |
 * | slow marks | `acc_X#WHK` | `#SLOW` (after `#COUNT`, before every id) |
 * | delivery | `acc_X#WHK#whk_W#DLV` | `dlv_D` (newest first by id) |
 * | attempt | `acc_X#DLV#dlv_D` | `ATT#0001` |
 */
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ConflictError, notFound, PostlaneError } from '#shared/platform/errors.ts';
import {
  db,
  isConditionFailure,
  queryAll,
  tableName,
  transactWrite,
  TransactionCancelled,
  getMapped,
  jitteredBackoff,
  sleep,
  updateIf,
  updateReturning,
  putNew,
  firstConditionFailed,
} from '#shared/platform/dynamodb/client.ts';
import { accountScoped } from '#shared/platform/dynamodb/partition.ts';

export interface WebhookEndpoint {
  id: string;
  url: string;
  /** Event types, or `['*']` for all. */
  events: string[];
  description: string;
  enabled: boolean;
  /** `whsec_…`: never answered after creation. */
  secret: string;
  createdAt: string;
  updatedAt: string;
  /** Start of the current run of failed attempts; absent after any success. */
  failingSince?: string;
  disabledAt?: string;
}

/**
 * Where an account's receivers were seen slow (shared/webhooks/slow-marks.ts
 * keeps the rule): until when the deliveries to each host, and all of the
 * account's, take the slow lane. Kept apart from the endpoints, so that no
 * change of an endpoint (its URL, or deleting it and making another) clears
 * them; stored beside them, so that the fan-out's Query of the endpoints reads
 * them too.
 */
export interface SlowMarks {
  /** By receiver host (`host[:port]` of the URL): until when (ISO) its deliveries take the slow lane. */
  hosts: Record<string, string>;
  /** Until when (ISO) every delivery of the account takes the slow lane. */
  accountUntil?: string;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface Delivery {
  id: string;
  webhookId: string;
  eventId: string;
  eventType: string;
  /** The exact body every attempt sends and signs. */
  payload: string;
  status: DeliveryStatus;
  attempts: number;
  lastStatusCode?: number;
  lastError?: string;
  nextAttemptAt?: string;
  createdAt: string;
  /** Epoch ms until which the attempt in progress owns the delivery. */
  leaseUntil?: number;
  expiresAt: number;
}

export interface DeliveryAttempt {
  attempt: number;
  at: string;
  statusCode?: number;
  error?: string;
  durationMs: number;
}

const endpointKey = (accountId: string, webhookId: string) => ({ pk: accountScoped(accountId, 'WHK'), sk: webhookId });
const countKey = (accountId: string) => ({ pk: accountScoped(accountId, 'WHK'), sk: '#COUNT' });
const SLOW_MARKS_SK = '#SLOW';
const slowMarksKey = (accountId: string) => ({ pk: accountScoped(accountId, 'WHK'), sk: SLOW_MARKS_SK });
const deliveryPartition = (accountId: string, webhookId: string) => accountScoped(accountId, 'WHK', webhookId, 'DLV');
const deliveryKey = (accountId: string, webhookId: string, deliveryId: string) => ({ pk: deliveryPartition(accountId, webhookId), sk: deliveryId });
/** Every attempt of a delivery is in this partition (exported for the retention test, which reads their TTL). */
export const attemptPartition = (accountId: string, deliveryId: string) => accountScoped(accountId, 'DLV', deliveryId);
const attemptSortKey = (attempt: number) => `ATT#${String(attempt).padStart(4, '0')}`;

function toEndpoint(item: Record<string, unknown>): WebhookEndpoint {
  const { pk: _pk, sk: _sk, entity: _entity, ...endpoint } = item;
  return endpoint as unknown as WebhookEndpoint;
}

function toSlowMarks(item: Record<string, unknown> | undefined): SlowMarks {
  if (!item) return { hosts: {} };
  return { hosts: (item.hosts as Record<string, string> | undefined) ?? {}, ...(item.accountUntil ? { accountUntil: item.accountUntil as string } : {}) };
}

function toDelivery(item: Record<string, unknown>): Delivery {
  const { pk: _pk, sk: _sk, entity: _entity, ...delivery } = item;
  return delivery as unknown as Delivery;
}

/** Puts a new endpoint if the account has fewer than `max`; WEBHOOK_LIMIT_REACHED otherwise. */
export async function putEndpoint(accountId: string, endpoint: WebhookEndpoint, max: number): Promise<void> {
  try {
    await transactWrite([
      putNew({ ...endpointKey(accountId, endpoint.id), entity: 'webhook', ...endpoint }),
      {
        Update: {
          TableName: tableName,
          Key: countKey(accountId),
          UpdateExpression: 'ADD #count :one',
          ConditionExpression: 'attribute_not_exists(#count) OR #count < :max',
          ExpressionAttributeNames: { '#count': 'count' },
          ExpressionAttributeValues: { ':one': 1, ':max': max },
        },
      },
    ]);
  } catch (error) {
    if (error instanceof TransactionCancelled && error.reasons[1] === 'ConditionalCheckFailed') {
      throw new ConflictError('WEBHOOK_LIMIT_REACHED', `An account has at most ${max} webhook endpoints`);
    }
    throw error;
  }
}

export async function getEndpoint(accountId: string, webhookId: string): Promise<WebhookEndpoint | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: endpointKey(accountId, webhookId), ConsistentRead: true }));
  return Item ? toEndpoint(Item) : undefined;
}

/** Every endpoint of the account, newest first (at most the limit per account, so one small query). */
export async function listEndpoints(accountId: string): Promise<WebhookEndpoint[]> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': endpointKey(accountId, '').pk, ':prefix': 'whk_' },
    ScanIndexForward: false,
    ConsistentRead: true,
  });
  return items.map(toEndpoint);
}

/** The account's endpoints, newest first, and its slow marks: the one Query the fan-out makes for an event. */
export async function listEndpointsAndSlowMarks(accountId: string): Promise<{ endpoints: WebhookEndpoint[]; slowMarks: SlowMarks }> {
  // Everything from the marks on: they sort after the count and before every endpoint.
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND sk >= :marks',
    ExpressionAttributeValues: { ':pk': endpointKey(accountId, '').pk, ':marks': SLOW_MARKS_SK },
    ScanIndexForward: false,
    ConsistentRead: true,
  });
  return {
    endpoints: items.filter((item) => String(item.sk).startsWith('whk_')).map(toEndpoint),
    slowMarks: toSlowMarks(items.find((item) => item.sk === SLOW_MARKS_SK)),
  };
}

/** The account's slow marks (none when it has none). */
export async function getSlowMarks(accountId: string): Promise<SlowMarks> {
  return (await getMapped(slowMarksKey(accountId), toSlowMarks)) ?? { hosts: {} };
}

/** Rounds of optimistic retry: only workers judging receivers of one account slow at the same moment race. */
const SLOW_MARK_ROUNDS = 8;

/**
 * Rewrites the account's slow marks as `change` makes them from the stored
 * ones, unless it answers undefined (nothing to change); answers what was
 * written. A read and a put on the version read, retried when another writer
 * came between, so no mark is lost. The item expires (TTL) when its last mark
 * lapses; readers ignore lapsed marks before that.
 */
export async function updateSlowMarks(accountId: string, change: (current: SlowMarks) => SlowMarks | undefined): Promise<SlowMarks | undefined> {
  const key = slowMarksKey(accountId);
  for (let round = 0; round < SLOW_MARK_ROUNDS; round++) {
    if (round > 0) await sleep(jitteredBackoff(round));
    const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }));
    const next = change(toSlowMarks(Item));
    if (!next) return undefined;
    const version = Number(Item?.version ?? 0);
    const lastUntil = Math.max(...[...Object.values(next.hosts), next.accountUntil ?? ''].map((until) => Date.parse(until) || 0));
    try {
      await db.send(
        new PutCommand({
          TableName: tableName,
          Item: { ...key, entity: 'webhookSlowMarks', ...next, version: version + 1, expiresAt: Math.ceil(lastUntil / 1000) },
          ConditionExpression: Item ? 'version = :version' : 'attribute_not_exists(pk)',
          ...(Item ? { ExpressionAttributeValues: { ':version': version } } : {}),
        }),
      );
      return next;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
  throw new Error(`The slow marks of ${accountId} kept changing under ${SLOW_MARK_ROUNDS} writers`);
}

/** Sets the given fields of an existing endpoint (and removes `remove`); WEBHOOK_NOT_FOUND when there is none. */
export async function updateEndpoint(
  accountId: string,
  webhookId: string,
  changes: Partial<Omit<WebhookEndpoint, 'id' | 'secret' | 'createdAt'>>,
  remove: readonly ('failingSince' | 'disabledAt')[] = [],
): Promise<WebhookEndpoint> {
  const entries = Object.entries(changes).filter(([, value]) => value !== undefined);
  const names = Object.fromEntries([...entries.map(([name]) => name), ...remove].map((name) => [`#${name}`, name]));
  const set = entries.map(([name]) => `#${name} = :${name}`);
  const updated = await updateReturning({
    Key: endpointKey(accountId, webhookId),
    UpdateExpression: [set.length ? `SET ${set.join(', ')}` : '', remove.length ? `REMOVE ${remove.map((name) => `#${name}`).join(', ')}` : ''].join(' '),
    ConditionExpression: 'attribute_exists(pk)',
    ExpressionAttributeNames: names,
    ...(entries.length ? { ExpressionAttributeValues: Object.fromEntries(entries.map(([name, value]) => [`:${name}`, value])) } : {}),
  });
  if (!updated) throw notFound.webhook();
  return toEndpoint(updated);
}

/** Deletes the endpoint and gives its place back; its deliveries expire with their TTL. */
export async function deleteEndpoint(accountId: string, webhookId: string): Promise<void> {
  try {
    await transactWrite([
      { Delete: { TableName: tableName, Key: endpointKey(accountId, webhookId), ConditionExpression: 'attribute_exists(pk)' } },
      {
        Update: {
          TableName: tableName,
          Key: countKey(accountId),
          UpdateExpression: 'ADD #count :minus',
          ExpressionAttributeNames: { '#count': 'count' },
          ExpressionAttributeValues: { ':minus': -1 },
        },
      },
    ]);
  } catch (error) {
    if (firstConditionFailed(error)) throw notFound.webhook();
    throw error;
  }
}

/** Notes a failed attempt: the run of failures starts now unless one is already running; answers its start. */
export async function markEndpointFailing(accountId: string, webhookId: string, now: string): Promise<string | undefined> {
  const updated = await updateReturning({
    Key: endpointKey(accountId, webhookId),
    UpdateExpression: 'SET failingSince = if_not_exists(failingSince, :now)',
    ConditionExpression: 'attribute_exists(pk)',
    ExpressionAttributeValues: { ':now': now },
  });
  return updated?.failingSince as string | undefined;
}

/** Ends a run of failures (a delivery succeeded); nothing to write when none is running. */
export async function clearEndpointFailing(accountId: string, webhookId: string): Promise<void> {
  await updateIf({ Key: endpointKey(accountId, webhookId), UpdateExpression: 'REMOVE failingSince', ConditionExpression: 'attribute_exists(failingSince)' });
}

/**
 * Disables an endpoint whose run of failures started at `failingSince`;
 * true for the one caller that did it (racing workers disable it once).
 */
export function disableFailingEndpoint(accountId: string, webhookId: string, failingSince: string, now: string): Promise<boolean> {
  return updateIf({
    Key: endpointKey(accountId, webhookId),
    UpdateExpression: 'SET enabled = :false, disabledAt = :now, updatedAt = :now',
    ConditionExpression: 'enabled = :true AND failingSince = :since',
    ExpressionAttributeValues: { ':false': false, ':true': true, ':now': now, ':since': failingSince },
  });
}

/** Puts the delivery unless it exists (one per event and endpoint); answers the stored one. */
export async function putDeliveryOnce(accountId: string, delivery: Delivery): Promise<{ delivery: Delivery; created: boolean }> {
  const key = deliveryKey(accountId, delivery.webhookId, delivery.id);
  try {
    await db.send(new PutCommand({ TableName: tableName, Item: { ...key, entity: 'delivery', ...delivery }, ConditionExpression: 'attribute_not_exists(pk)' }));
    return { delivery, created: true };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
  return { delivery: (await getDelivery(accountId, delivery.webhookId, delivery.id))!, created: false };
}

export async function getDelivery(accountId: string, webhookId: string, deliveryId: string): Promise<Delivery | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: deliveryKey(accountId, webhookId, deliveryId), ConsistentRead: true }));
  return Item ? toDelivery(Item) : undefined;
}

/** One page of an endpoint's deliveries, newest first, expired ones left out. */
export async function queryDeliveries(
  accountId: string,
  webhookId: string,
  options: { limit: number; startKey?: Record<string, string>; nowSeconds: number },
): Promise<{ deliveries: Delivery[]; lastKey?: Record<string, string> }> {
  const response = await db.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk',
      FilterExpression: 'expiresAt > :now',
      ExpressionAttributeValues: { ':pk': deliveryPartition(accountId, webhookId), ':now': options.nowSeconds },
      ScanIndexForward: false,
      Limit: options.limit,
      ExclusiveStartKey: options.startKey,
    }),
  );
  return { deliveries: (response.Items ?? []).map(toDelivery), lastKey: response.LastEvaluatedKey as Record<string, string> | undefined };
}

/**
 * Takes attempt `attempt` of a pending delivery until `leaseUntil`: when the
 * previous attempt is done, or when this one was taken by a worker that died
 * (its lease ran out without an outcome). A duplicate queue message finds
 * the condition false and does nothing, so each attempt is made once.
 */
export async function claimAttempt(
  accountId: string,
  webhookId: string,
  deliveryId: string,
  attempt: number,
  now: number,
  leaseUntil: number,
): Promise<Delivery | undefined> {
  const claimed = await updateReturning({
    Key: deliveryKey(accountId, webhookId, deliveryId),
    UpdateExpression: 'SET attempts = :attempt, leaseUntil = :lease',
    ConditionExpression: '#status = :pending AND (attempts = :previous OR (attempts = :attempt AND leaseUntil < :now))',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':pending': 'pending', ':previous': attempt - 1, ':attempt': attempt, ':now': now, ':lease': leaseUntil },
  });
  return claimed ? toDelivery(claimed) : undefined;
}

export interface AttemptOutcome {
  status: DeliveryStatus;
  nextAttemptAt?: string;
  record: DeliveryAttempt;
}

/** Records an attempt and its outcome together, if the attempt is still the delivery's latest. */
export async function finishAttempt(accountId: string, delivery: Delivery, outcome: AttemptOutcome): Promise<void> {
  const { record } = outcome;
  const set = [
    '#status = :status',
    'updatedAt = :at',
    ...(record.statusCode === undefined ? [] : ['lastStatusCode = :code']),
    ...(record.error === undefined ? [] : ['lastError = :error']),
    ...(outcome.nextAttemptAt ? ['nextAttemptAt = :next'] : []),
  ];
  const remove = [
    'leaseUntil',
    ...(record.statusCode === undefined ? ['lastStatusCode'] : []),
    ...(record.error === undefined ? ['lastError'] : []),
    ...(outcome.nextAttemptAt ? [] : ['nextAttemptAt']),
  ];
  try {
    await transactWrite([
      {
        Update: {
          TableName: tableName,
          Key: deliveryKey(accountId, delivery.webhookId, delivery.id),
          UpdateExpression: `SET ${set.join(', ')} REMOVE ${remove.join(', ')}`,
          ConditionExpression: 'attempts = :attempt',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':status': outcome.status,
            ':at': record.at,
            ':attempt': record.attempt,
            ...(record.statusCode === undefined ? {} : { ':code': record.statusCode }),
            ...(record.error === undefined ? {} : { ':error': record.error }),
            ...(outcome.nextAttemptAt ? { ':next': outcome.nextAttemptAt } : {}),
          },
        },
      },
      {
        Put: {
          TableName: tableName,
          Item: {
            pk: attemptPartition(accountId, delivery.id),
            sk: attemptSortKey(record.attempt),
            entity: 'deliveryAttempt',
            ...record,
            expiresAt: delivery.expiresAt,
          },
        },
      },
    ]);
  } catch (error) {
    // A manual retry moved the delivery on meanwhile: this outcome is no longer its latest.
    if (firstConditionFailed(error)) return;
    throw error;
  }
}

/** Ends a pending delivery without an attempt (its endpoint was disabled or deleted). */
export async function abandonDelivery(accountId: string, delivery: Delivery, reason: string, now: string): Promise<void> {
  await updateIf({
    Key: deliveryKey(accountId, delivery.webhookId, delivery.id),
    UpdateExpression: 'SET #status = :failed, lastError = :reason, updatedAt = :now REMOVE nextAttemptAt, leaseUntil',
    ConditionExpression: '#status = :pending AND attempts = :attempts',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':failed': 'failed', ':pending': 'pending', ':reason': reason, ':now': now, ':attempts': delivery.attempts },
  });
}

/**
 * Makes a delivery pending again for a manual retry, unless an attempt is in
 * progress (CONFLICT); answers it as it now is.
 */
export async function reopenDelivery(accountId: string, webhookId: string, deliveryId: string, now: number): Promise<Delivery> {
  const reopened = await updateReturning({
    Key: deliveryKey(accountId, webhookId, deliveryId),
    UpdateExpression: 'SET #status = :pending, nextAttemptAt = :at, updatedAt = :at',
    ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(leaseUntil) OR leaseUntil < :now)',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':pending': 'pending', ':at': new Date(now).toISOString(), ':now': now },
  });
  if (reopened) return toDelivery(reopened);
  if (!(await getDelivery(accountId, webhookId, deliveryId))) throw notFound.delivery();
  throw new PostlaneError('CONFLICT', 'An attempt of this delivery is in progress; retry it once it ends');
}

/** Every attempt of a delivery, first first (at most the schedule's eight plus manual retries). */
export async function listAttempts(accountId: string, deliveryId: string): Promise<DeliveryAttempt[]> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': attemptPartition(accountId, deliveryId) },
    ConsistentRead: true,
  });
  return items.map(({ pk: _pk, sk: _sk, entity: _entity, expiresAt: _expiresAt, ...attempt }) => attempt as unknown as DeliveryAttempt);
}
