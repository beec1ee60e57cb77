import { newId, isId } from '#shared/platform/ids.ts';
import { notFound } from '#shared/platform/errors.ts';
import { getAccount } from '#shared/accounts/service.ts';
import {
  deleteAudience as removeAudience,
  getAudience as readAudience,
  getAudienceCounters,
  GROWTH_WINDOW_DAYS,
  insertAudience,
  listAudiences as readAudiences,
  updateAudience as writeAudience,
  utcDay,
  type AudienceCounters,
  type AudienceRecord,
} from './store.ts';
import { pagination, type Pagination } from '#shared/platform/schema/common.ts';
import type { audienceSchema, audienceStatsSchema, CreateAudienceInput, UpdateAudienceInput } from './schema.ts';
import { CONTACT_STATUSES, type ContactStatus } from './contact-status.ts';
import type * as v from 'valibot';
import { orNull, pick } from '#shared/platform/views.ts';
import { findById } from '#shared/platform/lookup.ts';

export type Audience = v.InferOutput<typeof audienceSchema>;

export type AudienceStats = v.InferOutput<typeof audienceStatsSchema>;

function toAudience(record: AudienceRecord, counters: Pick<AudienceCounters, 'count'>): Audience {
  return { id: record.audienceId, ...pick(record, 'name', 'createdAt', 'updatedAt'), ...orNull(record, 'description'), count: counters.count };
}

/**
 * Percent change of the contact count over the last 30 days, one decimal; 0
 * when the audience had no contacts 30 days ago. The count then is the count
 * now less the net daily changes recorded since.
 */
export function growthRate(counters: Pick<AudienceCounters, 'count' | 'dailyChange'>, now: Date): number {
  let recentChange = 0;
  for (let daysBack = 0; daysBack < GROWTH_WINDOW_DAYS; daysBack++) {
    recentChange += counters.dailyChange[utcDay(now, daysBack)] ?? 0;
  }
  const before = counters.count - recentChange;
  if (before <= 0) return 0;
  return Math.round(((counters.count - before) / before) * 1000) / 10;
}

export async function createAudience(accountId: string, input: CreateAudienceInput, now: Date): Promise<Audience> {
  const record: AudienceRecord = {
    audienceId: newId('aud', now.getTime()),
    name: input.name,
    ...(input.description ? { description: input.description } : {}),
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
  };
  await insertAudience(accountId, record);
  return toAudience(record, { count: 0 });
}

export async function getAudience(accountId: string, audienceId: string): Promise<Audience> {
  const found = await findById('aud', audienceId, () => readAudience(accountId, audienceId), notFound.audience);
  return toAudience(found.audience, found.counters);
}

/** O(1): one read of the maintained counters, never a scan of the contacts. */
export async function getAudienceStats(accountId: string, audienceId: string, now: Date): Promise<AudienceStats> {
  const counters = isId('aud', audienceId) ? await getAudienceCounters(accountId, audienceId) : undefined;
  if (!counters || counters.deleted) throw notFound.audience();
  const byStatus = Object.fromEntries(CONTACT_STATUSES.map((status) => [status, counters.byStatus[status]])) as Record<ContactStatus, number>;
  return { total: counters.count, ...byStatus, growthRate: growthRate(counters, now) };
}

export async function listAudiences(
  accountId: string,
  page: number,
  limit: number,
): Promise<{ audiences: Omit<Audience, 'updatedAt'>[]; pagination: Pagination }> {
  const [account, rows] = await Promise.all([getAccount(accountId), readAudiences(accountId, (page - 1) * limit, limit)]);
  return {
    audiences: rows.map(({ audience, counters }) => {
      const { updatedAt: _updatedAt, ...listed } = toAudience(audience, counters);
      return listed;
    }),
    pagination: pagination(account?.audienceCount ?? 0, page, limit),
  };
}

export async function updateAudience(accountId: string, audienceId: string, input: UpdateAudienceInput, now: Date): Promise<Audience> {
  if (!isId('aud', audienceId)) throw notFound.audience();
  const [record, counters] = await Promise.all([writeAudience(accountId, audienceId, input, now), getAudienceCounters(accountId, audienceId)]);
  if (!record) throw notFound.audience();
  return toAudience(record, counters ?? { count: 0 });
}

/** Deletes the audience only: its contacts stay, keep their audienceId and are still listed by it. */
export async function deleteAudience(accountId: string, audienceId: string, now: Date): Promise<void> {
  if (!isId('aud', audienceId)) throw notFound.audience();
  await removeAudience(accountId, audienceId, now);
}

/** What other areas build on from the store (its reads, and the parts their transactions write): through this service, never the store itself. */
export {
  type AudienceCounters,
  audienceExistsCheck,
  type CounterDelta,
  counterUpdate,
  getAudience as getAudienceRecord,
  getAudienceCounters,
  getAudienceProfiles,
  listAllCounters,
} from './store.ts';
