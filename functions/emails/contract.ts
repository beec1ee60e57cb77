import { defineArea, KEYED } from '#shared/http/contract.ts';
import { emailSchema } from '#shared/schemas/emails.ts';
import { dataReply } from '#shared/schemas/replies.ts';

export const emails = defineArea('emails', {
  get: {
    // Reading records is not sending: decisions give `sending` keys the three send endpoints only.
    method: 'GET',
    path: '/api/emails/{id}',
    ...KEYED,
    table: ['GetItem'],
    params: { id: 'email' },
    request: {},
    responses: { 200: dataReply(emailSchema) },
    errors: ['EMAIL_NOT_FOUND'],
    summary: 'Get the record of a sent email',
    description: 'The record a send answered as `emailId`, with its delivery status as SES reports it (delivered, bounced, complained…).',
  },
});
