/**
 * Recounts read the stored items themselves, through the store modules, so a
 * counter can be compared with what it counts.
 */
import { getAudienceCounters } from '#shared/audiences/store.ts';
import { queryContacts } from '#shared/contacts/store.ts';
import { CONTACT_STATUSES, type ContactStatus } from '#shared/audiences/contact-status.ts';

export type StatusCounts = Record<ContactStatus, number>;

/** More than any test stores in one audience. */
const ALL = 100_000;

/** The contacts stored in the audience, per status, counted one by one from the status index. */
export async function recountAudience(accountId: string, audienceId: string): Promise<{ total: number } & StatusCounts> {
  const counts = Object.fromEntries(
    await Promise.all(
      CONTACT_STATUSES.map(async (status) => [status, (await queryContacts(accountId, { audienceId, status }, 0, ALL)).contacts.length] as const),
    ),
  ) as StatusCounts;
  return { total: (await queryContacts(accountId, { audienceId }, 0, ALL)).contacts.length, ...counts };
}

/** The audience's maintained counters in the same shape. */
export async function audienceCounters(accountId: string, audienceId: string): Promise<{ total: number } & StatusCounts> {
  const counters = await getAudienceCounters(accountId, audienceId);
  if (!counters) throw new Error(`No counters for ${audienceId}`);
  return { total: counters.count, ...(Object.fromEntries(CONTACT_STATUSES.map((status) => [status, counters.byStatus[status] ?? 0])) as StatusCounts) };
}
