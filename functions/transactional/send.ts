import { endpoint } from '#shared/accounts/endpoint.ts';
import { idempotentOk } from '#shared/platform/http/reply.ts';
import { sendTransactional } from '#shared/sending/transactional.ts';
import { transactional } from './contract.ts';

export const handler = endpoint(transactional.send, async ({ principal, body, now }) => idempotentOk(await sendTransactional(body, { principal, now })));
