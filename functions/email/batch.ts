import { endpoint } from '#shared/http/endpoint.ts';
import { idempotentOk } from '#shared/http/reply.ts';
import { sendEmailBatch } from '#shared/domain/email-batch.ts';
import { email } from './contract.ts';

export const handler = endpoint(email.batch, async ({ principal, body, now }) => idempotentOk(await sendEmailBatch(body, { principal, now })));
