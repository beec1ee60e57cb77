import { listEvents } from '#shared/domain/events.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { cursorPage } from '#shared/http/reply.ts';
import { events } from './contract.ts';

export const handler = endpoint(events.list, async ({ principal, query, now }) => {
  const page = await listEvents(principal.accountId, query, now.getTime());
  return cursorPage('events', page.events, query.limit, page.nextCursor);
});
