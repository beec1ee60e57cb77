import { endpoint } from '#shared/accounts/endpoint.ts';
import { cursorPage } from '#shared/platform/http/reply.ts';
import { listSuppressions } from '#shared/suppressions/service.ts';
import { suppressions } from './contract.ts';

export const handler = endpoint(suppressions.list, async ({ principal, query }) => {
  const page = await listSuppressions(principal.accountId, query);
  return cursorPage('suppressions', page.suppressions, query.limit, page.nextCursor);
});
