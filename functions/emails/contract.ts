import { defineArea, resource } from '#shared/platform/http/contract.ts';
import { emailSchema, listEmailsQuery } from '#shared/messages/schema.ts';
import { emailEventsQuery, eventSchema } from '#shared/events/schema.ts';

const record = resource('/api/emails', 'email', 'EMAIL_NOT_FOUND', { schema: emailSchema });

// Reading records is not sending: decisions give `sending` keys the three send endpoints only.
export const emails = defineArea('emails', {
  list: record.cursorList({
    name: 'emails',
    query: listEmailsQuery,
    item: emailSchema,
    table: ['Query'],
    summary: 'List sent emails (the message log)',
    description:
      'Newest first, one page of `limit` (default 20, at most 100); pass `pagination.nextCursor` back as `cursor` for the next, until it is null. With `status` or `broadcastId` a page reads at most ten times `limit` emails and may come back short, or empty, with a `nextCursor`: go on until it is null.',
  }),
  get: record.get({
    table: ['GetItem'],
    summary: 'Get the record of a sent email',
    description: 'The record a send answered as `emailId`, with its delivery status as SES reports it (delivered, bounced, complained…).',
  }),
  events: record.cursorList({
    sub: 'events',
    name: 'events',
    query: emailEventsQuery,
    item: eventSchema,
    table: ['GetItem', 'Query'],
    summary: "List an email's events",
    description: 'What happened to the email (sent, delivered, bounced, opened…), oldest first, with cursor pagination as in the message log.',
  }),
});
