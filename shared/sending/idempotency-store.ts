import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionFailure, tableName, updateIf, deleteIf } from '#shared/platform/dynamodb/client.ts';
import { accountScoped } from '#shared/platform/dynamodb/partition.ts';
import { ConflictError } from '#shared/platform/errors.ts';

/** Which request an idempotency key belongs to: the account, a scope within it (environment and endpoint), the client's key. */
export interface IdempotencyKey {
  accountId: string;
  scope: string;
  key: string;
}

export type IdempotencyRecord =
  | { status: 'INPROGRESS'; payloadHash: string; leaseUntil: number; expiresAt: number }
  | { status: 'COMPLETED'; payloadHash: string; response: Record<string, unknown>; expiresAt: number };

/** The scope of an endpoint's keys for live or test keys: `live#otp/send`. */
export const idempotencyScope = (env: string, endpoint: string) => `${env}#${endpoint}`;

/** The client's key goes last, so whatever characters it holds it cannot reach into another scope. */
const idempotencyItemKey = ({ accountId, scope, key }: IdempotencyKey) => ({ pk: accountScoped(accountId, 'IDEM', scope, key), sk: 'IDEM' });

function toRecord(item: Record<string, unknown>): IdempotencyRecord {
  const common = { payloadHash: item.payloadHash as string, expiresAt: Number(item.expiresAt) };
  return item.status === 'COMPLETED'
    ? { status: 'COMPLETED', ...common, response: item.response as Record<string, unknown> }
    : { status: 'INPROGRESS', ...common, leaseUntil: Number(item.leaseUntil) };
}

export interface Claim {
  payloadHash: string;
  /** Identifies the request holding the claim, so only it completes or releases it. */
  token: string;
  /** Epoch ms until which the claim blocks others; after it a crashed request's claim can be taken over. */
  leaseUntil: number;
  /** Epoch seconds: the TTL of the whole record. */
  expiresAt: number;
}

/** Claim, find it taken, find it gone: only a holder failing again and again repeats this. */
const CLAIM_ROUNDS = 5;

export type ClaimResult = { claimed: true } | { claimed: false; existing: IdempotencyRecord };

/**
 * Takes the key for one request: succeeds when no live record holds it (none,
 * expired, or an in-progress record whose lease ran out). Otherwise returns the
 * record that holds it. TTL deletes late, so expiry is part of the condition.
 */
export async function claimIdempotencyKey(id: IdempotencyKey, claim: Claim, now: Date): Promise<ClaimResult> {
  const key = idempotencyItemKey(id);
  for (let round = 0; round < CLAIM_ROUNDS; round++) {
    try {
      await db.send(
        new PutCommand({
          TableName: tableName,
          Item: { ...key, entity: 'idempotency', status: 'INPROGRESS', ...claim },
          ConditionExpression: 'attribute_not_exists(pk) OR expiresAt < :nowSeconds OR (#status = :inProgress AND leaseUntil < :nowMs)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':nowSeconds': Math.floor(now.getTime() / 1000), ':nowMs': now.getTime(), ':inProgress': 'INPROGRESS' },
        }),
      );
      return { claimed: true };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
    const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }));
    // Gone between the two calls: the holder failed and released it, so claim again.
    if (Item) return { claimed: false, existing: toRecord(Item) };
  }
  throw new ConflictError('IDEMPOTENCY_IN_PROGRESS', 'Requests with this idempotency key keep racing; retry shortly', {
    field: 'idempotencyKey',
    retryAfter: 1,
  });
}

/**
 * The completed record of a claim, for a request to put in its own last
 * write: `{ ...claim, response }`, keeping the token so that a release by the
 * same request still drops it.
 */
export function completedIdempotencyItem(id: IdempotencyKey, completed: Claim & { response: Record<string, unknown> }): Record<string, unknown> {
  const { leaseUntil: _, ...kept } = completed;
  return { ...idempotencyItemKey(id), entity: 'idempotency', ...kept, status: 'COMPLETED' };
}

/** Stores the response under the claim; false when the claim is no longer this request's (its lease ran out and another took it). */
export async function completeIdempotencyKey(id: IdempotencyKey, token: string, response: Record<string, unknown>): Promise<boolean> {
  return updateIf({
    Key: idempotencyItemKey(id),
    UpdateExpression: 'SET #status = :completed, #response = :response REMOVE leaseUntil',
    ConditionExpression: '#token = :token',
    ExpressionAttributeNames: { '#status': 'status', '#response': 'response', '#token': 'token' },
    ExpressionAttributeValues: { ':completed': 'COMPLETED', ':response': response, ':token': token },
  });
}

/** Drops this request's claim after it failed, so the client can retry with the same key at once. */
export async function releaseIdempotencyKey(id: IdempotencyKey, token: string): Promise<void> {
  await deleteIf({
    Key: idempotencyItemKey(id),
    ConditionExpression: '#token = :token',
    ExpressionAttributeNames: { '#token': 'token' },
    ExpressionAttributeValues: { ':token': token },
  });
}
