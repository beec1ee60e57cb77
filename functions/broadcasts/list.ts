import { endpoint } from '#shared/accounts/endpoint.ts';
import { ok } from '#shared/platform/http/reply.ts';
import { listBroadcasts } from '#shared/broadcasts/service.ts';
import { broadcasts } from './contract.ts';

export const handler = endpoint(broadcasts.list, async ({ principal, query }) => ok({ ...(await listBroadcasts(principal.accountId, query)) }));
