import { endpoint } from '#shared/http/endpoint.ts';
import { created } from '#shared/http/reply.ts';
import { createBroadcast } from '#shared/domain/broadcasts.ts';
import { broadcasts } from './contract.ts';

export const handler = endpoint(broadcasts.create, async ({ principal, body, now }) => created(await createBroadcast(principal.accountId, body, now)));
