import { cursorList, defineArea } from '#shared/platform/http/contract.ts';
import { eventSchema, listEventsQuery } from '#shared/events/schema.ts';

export const events = defineArea('events', {
  list: cursorList({
    path: '/api/events',
    name: 'events',
    query: listEventsQuery,
    item: eventSchema,
    table: ['Query'],
    summary: "List the account's events",
    description:
      'Every event the account produced within retention (the catalogue is in the webhooks guide), newest first, optionally of one `type` and within `startDate`..`endDate` (inclusive); cursor pagination: pass `pagination.nextCursor` back as `cursor` until it is null.',
  }),
});
