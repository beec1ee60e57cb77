import { endpoint } from '#shared/accounts/endpoint.ts';
import { idempotentOk } from '#shared/platform/http/reply.ts';
import { sendEmailBatch } from '#shared/sending/batch.ts';
import { email } from './contract.ts';

export const handler = endpoint(email.batch, async ({ principal, body, now }) => idempotentOk(await sendEmailBatch(body, { principal, now })));
