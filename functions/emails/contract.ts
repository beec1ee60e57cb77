import { defineArea, resource } from '#shared/platform/http/contract.ts';
import { emailContentSchema, emailSchema, listEmailsQuery } from '#shared/messages/schema.ts';
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
  content: record.get({
    sub: 'content',
    reply: emailContentSchema,
    table: ['GetItem'],
    attachments: ['readContent'],
    errors: ['EMAIL_CONTENT_NOT_FOUND'],
    summary: "Get a sent email's content",
    description:
      "What the message held when it was handed to SES (or, for a test key, would have been): `subject`, `from`, `to`, `cc`, `bcc` and `replyTo` as its headers carried them, the `headers` Postlane added (`List-Unsubscribe`, `List-Id`…), the `text` and `html` parts as rendered for its recipient (before open and click tracking rewrote the HTML), and each attachment's `filename`, `contentType` and `size` in bytes (never its content). Kept as long as the record. An email whose content is not kept (a suppressed recipient's, or one past retention whose record has not yet been removed) answers 404 `EMAIL_CONTENT_NOT_FOUND`; the HTML is the sender's own: show it only where no script can run.",
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
