import { endpoint } from '#shared/accounts/endpoint.ts';
import { accepted } from '#shared/platform/http/reply.ts';
import { sendBroadcast } from '#shared/broadcasts/service.ts';
import { broadcasts } from './contract.ts';

export const handler = endpoint(broadcasts.send, async ({ principal, params, body, now }) => accepted(await sendBroadcast(principal, params.id!, body, now)));
