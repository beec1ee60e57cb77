import { endpoint } from '#shared/accounts/endpoint.ts';
import { ok } from '#shared/platform/http/reply.ts';
import { getBroadcast } from '#shared/broadcasts/service.ts';
import { broadcasts } from './contract.ts';

export const handler = endpoint(broadcasts.get, async ({ principal, params }) => ok({ data: await getBroadcast(principal.accountId, params.id!) }));
