import { listEventsOfEmail } from '#shared/domain/emails.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { cursorPage } from '#shared/http/reply.ts';
import { emails } from './contract.ts';

export const handler = endpoint(emails.events, async ({ principal, params, query, now }) => {
  const page = await listEventsOfEmail(principal.accountId, params.id!, query, now.getTime());
  return cursorPage('events', page.events, query.limit, page.nextCursor);
});
