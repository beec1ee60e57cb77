import { endpoint } from '#shared/accounts/endpoint.ts';
import { created } from '#shared/platform/http/reply.ts';
import { createBroadcast } from '#shared/broadcasts/service.ts';
import { broadcasts } from './contract.ts';

export const handler = endpoint(broadcasts.create, async ({ principal, body, now }) => created(await createBroadcast(principal.accountId, body, now)));
