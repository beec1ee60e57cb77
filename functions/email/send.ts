import { endpoint } from '#shared/http/endpoint.ts';
import { idempotentOk } from '#shared/http/reply.ts';
import { sendEmail } from '#shared/domain/email-send.ts';
import { email } from './contract.ts';

export const handler = endpoint(email.send, async ({ principal, body, now }) => idempotentOk(await sendEmail(body, { principal, now })));
