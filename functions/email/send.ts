import { endpoint } from '#shared/http/endpoint.ts';
import { ok } from '#shared/http/reply.ts';
import { emailSendBody } from '#shared/schemas/sending.ts';
import { sendEmail } from '#shared/domain/email-send.ts';

export const handler = endpoint('email/send', { body: emailSendBody }, async ({ principal, body, now, origin }) =>
  ok(await sendEmail(body, { principal, now, origin })));
