import { endpoint } from '#shared/http/endpoint.ts';
import { ok } from '#shared/http/reply.ts';
import { listBroadcasts } from '#shared/domain/broadcasts.ts';
import { broadcasts } from './contract.ts';

export const handler = endpoint(broadcasts.list, async ({ principal, query }) => ok({ ...(await listBroadcasts(principal.accountId, query)) }));
