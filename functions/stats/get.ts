import { endpoint } from '#shared/accounts/endpoint.ts';
import { ok } from '#shared/platform/http/reply.ts';
import { getStats } from '#shared/messages/service.ts';
import { stats } from './contract.ts';

export const handler = endpoint(stats.get, async ({ principal, query, now }) =>
  ok({ data: await getStats(principal.accountId, query, now, principal.monthlyQuota!) }),
);
