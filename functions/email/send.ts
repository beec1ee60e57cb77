import { endpoint } from '#shared/accounts/endpoint.ts';
import { idempotentOk } from '#shared/platform/http/reply.ts';
import { sendEmail } from '#shared/sending/send-answer.ts';
import { email } from './contract.ts';

export const handler = endpoint(email.send, async ({ principal, body, now }) => idempotentOk(await sendEmail(body, { principal, now })));
