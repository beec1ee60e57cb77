import { endpoint } from '#shared/http/endpoint.ts';
import { idempotentOk } from '#shared/http/reply.ts';
import { sendTransactional } from '#shared/domain/transactional.ts';
import { transactional } from './contract.ts';

export const handler = endpoint(transactional.send, async ({ principal, body, now }) => idempotentOk(await sendTransactional(body, { principal, now })));
