import { defineArea, resource } from '#shared/http/contract.ts';
import { emailSchema } from '#shared/schemas/emails.ts';

const record = resource('/api/emails', 'email', 'EMAIL_NOT_FOUND');

export const emails = defineArea('emails', {
  // Reading records is not sending: decisions give `sending` keys the three send endpoints only.
  get: record.get({
    table: ['GetItem'],
    reply: emailSchema,
    summary: 'Get the record of a sent email',
    description: 'The record a send answered as `emailId`, with its delivery status as SES reports it (delivered, bounced, complained…).',
  }),
});
