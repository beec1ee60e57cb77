import { defineArea, KEYED } from '#shared/http/contract.ts';
import { eventSchema, listEventsQuery } from '#shared/schemas/events.ts';
import { cursorListReply } from '#shared/schemas/replies.ts';

export const events = defineArea('events', {
  list: {
    method: 'GET',
    path: '/api/events',
    ...KEYED,
    table: ['Query'],
    // Cursors are signed with the link-signing key (shared/domain/cursors.ts).
    secrets: ['linkSigning'],
    request: { query: listEventsQuery },
    responses: { 200: cursorListReply('events', eventSchema) },
    summary: "List the account's events",
    description:
      'Every event the account produced within retention (the catalogue is in the webhooks guide), newest first, optionally of one `type` and within `startDate`..`endDate` (inclusive); cursor pagination: pass `pagination.nextCursor` back as `cursor` until it is null.',
  },
});
