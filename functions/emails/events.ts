import { listEventsOfEmail } from '#shared/messages/service.ts';
import { endpoint } from '#shared/accounts/endpoint.ts';
import { cursorPage } from '#shared/platform/http/reply.ts';
import { emails } from './contract.ts';

export const handler = endpoint(emails.events, async ({ principal, params, query, now }) => {
  const page = await listEventsOfEmail(principal.accountId, params.id!, query, now.getTime());
  return cursorPage('events', page.events, query.limit, page.nextCursor);
});
