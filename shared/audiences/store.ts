import { batchGetAll } from '#shared/platform/dynamodb/batches.ts';
import {
  queryAll,
  tableName,
  transactWrite,
  type TransactItems,
  queryPage,
  updateReturning,
  putNew,
  getMapped,
  firstConditionFailed,
} from '#shared/platform/dynamodb/client.ts';
import { accountKey, AUDIENCE_COUNT_ATTRIBUTE } from '#shared/platform/dynamodb/account-item.ts';
import { accountScoped } from '#shared/platform/dynamodb/partition.ts';
import { CONTACT_STATUSES, type ContactStatus } from './contact-status.ts';
import { notFound } from '#shared/platform/errors.ts';
import { optionalStrings, strings } from '#shared/platform/dynamodb/attributes.ts';

/**
 * An audience is two items: its profile (deleted with the audience) and its
 * counters (kept after deletion, because the audience's contacts stay and are
 * still listed by it, so their totals must stay exact).
 */
export interface AudienceRecord {
  audienceId: string;
  name: string;
  description?: string;
  createdAt: string;
  updatedAt: string;
}

export type StatusCounts = Record<ContactStatus, number>;

export interface AudienceCounters {
  count: number;
  byStatus: StatusCounts;
  /** Net change of `count` per UTC day (`2026-11-21`), for growthRate. */
  dailyChange: Record<string, number>;
  deleted: boolean;
}

/** A change to an audience's counters: +1 count and +1 subscribed for a new subscribed contact. */
export interface CounterDelta {
  count: number;
  byStatus: Partial<StatusCounts>;
}

const audienceKey = (accountId: string, audienceId: string) => ({ pk: accountScoped(accountId, 'AUD'), sk: audienceId });
const countersKey = (accountId: string, audienceId: string) => ({ pk: accountScoped(accountId, 'AUDSTATS'), sk: audienceId });

/** Days of daily change kept on the counters item; growthRate reads the last 30. */
export const GROWTH_WINDOW_DAYS = 30;

function toAudience(item: Record<string, unknown>): AudienceRecord {
  return { ...strings(item, 'audienceId', 'name', 'createdAt', 'updatedAt'), ...optionalStrings(item, 'description') };
}

function toCounters(item: Record<string, unknown>): AudienceCounters {
  const byStatus = Object.fromEntries(CONTACT_STATUSES.map((status) => [status, Number(item[status] ?? 0)])) as StatusCounts;
  return {
    count: Number(item.count ?? 0),
    byStatus,
    dailyChange: (item.growth ?? {}) as Record<string, number>,
    deleted: typeof item.deletedAt === 'string',
  };
}

function utcDay(now: Date, daysBack = 0): string {
  return new Date(now.getTime() - daysBack * 86_400_000).toISOString().slice(0, 10);
}

/** The transaction item applying `delta` to an audience's counters; contact writes put it in their own transaction. */
export function counterUpdate(accountId: string, audienceId: string, delta: CounterDelta, now: Date): TransactItems[number] {
  const names: Record<string, string> = { '#count': 'count', '#today': utcDay(now), '#expired': utcDay(now, GROWTH_WINDOW_DAYS + 1) };
  const values: Record<string, unknown> = { ':count': delta.count, ':zero': 0 };
  const sets = ['#count = #count + :count', 'growth.#today = if_not_exists(growth.#today, :zero) + :count'];
  for (const [status, change] of Object.entries(delta.byStatus)) {
    if (!change) continue;
    names[`#${status}`] = status;
    values[`:${status}`] = change;
    sets.push(`#${status} = #${status} + :${status}`);
  }
  return {
    Update: {
      TableName: tableName,
      Key: countersKey(accountId, audienceId),
      UpdateExpression: `SET ${sets.join(', ')} REMOVE growth.#expired`,
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
}

/** The transaction item requiring the audience to exist (not deleted). */
export function audienceExistsCheck(accountId: string, audienceId: string): TransactItems[number] {
  return { ConditionCheck: { TableName: tableName, Key: audienceKey(accountId, audienceId), ConditionExpression: 'attribute_exists(pk)' } };
}

export async function insertAudience(accountId: string, audience: AudienceRecord): Promise<void> {
  const zeroCounts = Object.fromEntries(CONTACT_STATUSES.map((status) => [status, 0]));
  await transactWrite([
    putNew({ ...audienceKey(accountId, audience.audienceId), entity: 'audience', ...audience }),
    putNew({
      ...countersKey(accountId, audience.audienceId),
      entity: 'audienceCounters',
      audienceId: audience.audienceId,
      count: 0,
      ...zeroCounts,
      growth: {},
    }),
    {
      Update: {
        TableName: tableName,
        Key: accountKey(accountId),
        UpdateExpression: 'ADD #audiences :one',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#audiences': AUDIENCE_COUNT_ATTRIBUTE },
        ExpressionAttributeValues: { ':one': 1 },
      },
    },
  ]);
}

/** The profile and the counters in one round trip; undefined when the audience does not exist or was deleted. */
export async function getAudience(accountId: string, audienceId: string): Promise<{ audience: AudienceRecord; counters: AudienceCounters } | undefined> {
  const keys = [audienceKey(accountId, audienceId), countersKey(accountId, audienceId)];
  const items = await batchGetAll(keys);
  const profile = items.find((item) => item.pk === keys[0]!.pk);
  const counters = items.find((item) => item.pk === keys[1]!.pk);
  return profile && counters ? { audience: toAudience(profile), counters: toCounters(counters) } : undefined;
}

/** Profiles of the audiences that still exist among `audienceIds`, by id: one BatchGetItem per 100. */
export async function getAudienceProfiles(accountId: string, audienceIds: string[]): Promise<Map<string, AudienceRecord>> {
  const items = await batchGetAll(audienceIds.map((audienceId) => audienceKey(accountId, audienceId)));
  return new Map(items.map((item) => [item.audienceId as string, toAudience(item)]));
}

/** Counters of an audience, also of a deleted one (its contacts remain); undefined when it never existed. */
export async function getAudienceCounters(accountId: string, audienceId: string): Promise<AudienceCounters | undefined> {
  return getMapped(countersKey(accountId, audienceId), toCounters);
}

/** Counters of every audience the account ever had: account-wide totals in one query, O(audiences), never O(contacts). */
export async function listAllCounters(accountId: string): Promise<AudienceCounters[]> {
  const items = await queryAll({ KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': countersKey(accountId, '').pk } });
  return items.map(toCounters);
}

/** Newest first: the `limit` audiences after skipping `offset`, with their counters. */
export async function listAudiences(accountId: string, offset: number, limit: number): Promise<{ audience: AudienceRecord; counters: AudienceCounters }[]> {
  const { items } = await queryPage(
    { KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': audienceKey(accountId, '').pk }, ScanIndexForward: false },
    offset,
    limit,
    0,
  );
  const wanted = items.map(toAudience);
  if (wanted.length === 0) return [];
  const counters = await batchGetAll(wanted.map((audience) => countersKey(accountId, audience.audienceId)));
  const countersById = new Map(counters.map((item) => [item.sk as string, toCounters(item)]));
  return wanted.map((audience) => ({ audience, counters: countersById.get(audience.audienceId) ?? toCounters({}) }));
}

/** Changes name and description; undefined when there is no such audience. */
export async function updateAudience(
  accountId: string,
  audienceId: string,
  changes: { name?: string; description?: string | null },
  now: Date,
): Promise<AudienceRecord | undefined> {
  const sets = ['updatedAt = :now'];
  const removes: string[] = [];
  const values: Record<string, unknown> = { ':now': now.toISOString() };
  // DynamoDB refuses a name placeholder the expression does not use: only a rename declares `#name`.
  const names: Record<string, string> = {};
  if (changes.name !== undefined) {
    sets.push('#name = :name');
    names['#name'] = 'name';
    values[':name'] = changes.name;
  }
  if (changes.description === null) removes.push('description');
  else if (changes.description !== undefined) {
    sets.push('description = :description');
    values[':description'] = changes.description;
  }
  const item = await updateReturning({
    Key: audienceKey(accountId, audienceId),
    UpdateExpression: `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
    ConditionExpression: 'attribute_exists(pk)',
    ...(changes.name !== undefined ? { ExpressionAttributeNames: names } : {}),
    ExpressionAttributeValues: values,
  });
  return item && toAudience(item);
}

/** Removes the profile and marks the counters deleted, in one transaction; throws AUDIENCE_NOT_FOUND when absent. */
export async function deleteAudience(accountId: string, audienceId: string, now: Date): Promise<void> {
  try {
    await transactWrite([
      { Delete: { TableName: tableName, Key: audienceKey(accountId, audienceId), ConditionExpression: 'attribute_exists(pk)' } },
      {
        Update: {
          TableName: tableName,
          Key: countersKey(accountId, audienceId),
          UpdateExpression: 'SET deletedAt = :now',
          ExpressionAttributeValues: { ':now': now.toISOString() },
        },
      },
      {
        Update: {
          TableName: tableName,
          Key: accountKey(accountId),
          UpdateExpression: 'ADD #audiences :minusOne',
          ExpressionAttributeNames: { '#audiences': AUDIENCE_COUNT_ATTRIBUTE },
          ExpressionAttributeValues: { ':minusOne': -1 },
        },
      },
    ]);
  } catch (error) {
    if (firstConditionFailed(error)) throw notFound.audience();
    throw error;
  }
}

export { utcDay };
