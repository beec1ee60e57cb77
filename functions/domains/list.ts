import { endpoint } from '#shared/accounts/endpoint.ts';
import { ok } from '#shared/platform/http/reply.ts';
import { listDomains } from '#shared/domains/service.ts';
import { domains } from './contract.ts';

export const handler = endpoint(domains.list, async ({ principal, query }) => ok({ ...(await listDomains(principal.accountId, query.page, query.limit)) }));
