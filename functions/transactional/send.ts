import { endpoint } from '#shared/http/endpoint.ts';
import { idempotentOk } from '#shared/http/reply.ts';
import { transactionalSendBody } from '#shared/schemas/sending.ts';
import { sendTransactional } from '#shared/domain/transactional.ts';

export const handler = endpoint('transactional/send', { body: transactionalSendBody }, async ({ principal, body, now }) =>
  idempotentOk(await sendTransactional(body, { principal, now })));
