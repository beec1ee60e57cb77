import { endpoint } from '#shared/http/endpoint.ts';
import { ok } from '#shared/http/reply.ts';
import { listDomains } from '#shared/domain/domains.ts';
import { domains } from './contract.ts';

export const handler = endpoint(domains.list, async ({ principal, query }) => ok({ ...(await listDomains(principal.accountId, query.page, query.limit)) }));
