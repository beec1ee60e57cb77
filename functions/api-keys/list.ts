import { endpoint } from '#shared/accounts/endpoint.ts';
import { listKeyPage } from '#shared/accounts/key-management.ts';
import { ok } from '#shared/platform/http/reply.ts';
import { apiKeys } from './contract.ts';

export const handler = endpoint(apiKeys.list, async ({ principal, query }) => ok({ ...(await listKeyPage(principal.accountId, query.page, query.limit)) }));
