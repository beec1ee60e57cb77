import { endpoint } from '#shared/http/endpoint.ts';
import { accepted } from '#shared/http/reply.ts';
import { sendBroadcast } from '#shared/domain/broadcasts.ts';
import { broadcasts } from './contract.ts';

export const handler = endpoint(broadcasts.send, async ({ principal, params, body, now }) => accepted(await sendBroadcast(principal, params.id!, body, now)));
