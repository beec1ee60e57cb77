import { listEmails } from '#shared/messages/service.ts';
import { endpoint } from '#shared/accounts/endpoint.ts';
import { cursorPage } from '#shared/platform/http/reply.ts';
import { emails } from './contract.ts';

export const handler = endpoint(emails.list, async ({ principal, query, now }) => {
  const page = await listEmails(principal.accountId, query, now.getTime());
  return cursorPage('emails', page.emails, query.limit, page.nextCursor);
});
