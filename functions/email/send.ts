import { endpoint } from '#shared/http/endpoint.ts';
import { idempotentOk } from '#shared/http/reply.ts';
import { emailSendBody } from '#shared/schemas/sending.ts';
import { sendEmail } from '#shared/domain/email-send.ts';

export const handler = endpoint('email/send', { body: emailSendBody }, async ({ principal, body, now }) =>
  idempotentOk(await sendEmail(body, { principal, now })));
