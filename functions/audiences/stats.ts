import { endpoint } from '#shared/accounts/endpoint.ts';
import { ok } from '#shared/platform/http/reply.ts';
import { getAudienceStats } from '#shared/audiences/service.ts';
import { audiences } from './contract.ts';

export const handler = endpoint(audiences.stats, async ({ principal, params, now }) =>
  ok({ data: await getAudienceStats(principal.accountId, params.id!, now) }),
);
