import { listEvents } from '#shared/events/service.ts';
import { endpoint } from '#shared/accounts/endpoint.ts';
import { cursorPage } from '#shared/platform/http/reply.ts';
import { events } from './contract.ts';

export const handler = endpoint(events.list, async ({ principal, query, now }) => {
  const page = await listEvents(principal.accountId, query, now.getTime());
  return cursorPage('events', page.events, query.limit, page.nextCursor);
});
