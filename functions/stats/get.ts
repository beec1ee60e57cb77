import { endpoint } from '#shared/accounts/endpoint.ts';
import { ok } from '#shared/platform/http/reply.ts';
import { getStats } from '#shared/messages/service.ts';
import { stats } from './contract.ts';

// `monthlyQuota` is optional for principals built by hand (tests, workers); a key's or a session's check always sets it.
export const handler = endpoint(stats.get, async ({ principal, query, now }) =>
  ok({ data: await getStats(principal.accountId, query, now, principal.monthlyQuota!) }),
);
