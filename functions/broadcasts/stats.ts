import { endpoint } from '#shared/accounts/endpoint.ts';
import { ok } from '#shared/platform/http/reply.ts';
import { getBroadcastStats } from '#shared/broadcasts/service.ts';
import { broadcasts } from './contract.ts';

export const handler = endpoint(broadcasts.stats, async ({ principal, params }) => ok({ data: await getBroadcastStats(principal.accountId, params.id!) }));
