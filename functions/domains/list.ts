import { endpoint } from '#shared/http/endpoint.ts';
import { ok } from '#shared/http/reply.ts';
import { listDomainsQuery } from '#shared/schemas/domains.ts';
import { listDomains } from '#shared/domain/domains.ts';

export const handler = endpoint('domains/list', { query: listDomainsQuery }, async ({ principal, query }) =>
  ok({ ...(await listDomains(principal.accountId, query.page, query.limit)) }));
