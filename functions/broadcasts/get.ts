import { endpoint } from '#shared/http/endpoint.ts';
import { ok } from '#shared/http/reply.ts';
import { getBroadcast } from '#shared/domain/broadcasts.ts';
import { broadcasts } from './contract.ts';

export const handler = endpoint(broadcasts.get, async ({ principal, params }) => ok({ data: await getBroadcast(principal.accountId, params.id!) }));
