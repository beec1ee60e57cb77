import { endpoint } from '#shared/http/endpoint.ts';
import { ok } from '#shared/http/reply.ts';
import { getAudienceStats } from '#shared/domain/audiences.ts';
import { audiences } from './contract.ts';

export const handler = endpoint(audiences.stats, async ({ principal, params, now }) =>
  ok({ data: await getAudienceStats(principal.accountId, params.id!, now) }),
);
