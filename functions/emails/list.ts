import { listEmails } from '#shared/domain/emails.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { cursorPage } from '#shared/http/reply.ts';
import { emails } from './contract.ts';

export const handler = endpoint(emails.list, async ({ principal, query, now }) => {
  const page = await listEmails(principal.accountId, query, now.getTime());
  return cursorPage('emails', page.emails, query.limit, page.nextCursor);
});
