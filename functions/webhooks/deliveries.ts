import { listDeliveries } from '#shared/webhooks/service.ts';
import { endpoint } from '#shared/accounts/endpoint.ts';
import { cursorPage } from '#shared/platform/http/reply.ts';
import { webhooks } from './contract.ts';

export const handler = endpoint(webhooks.deliveries, async ({ principal, params, query, now }) => {
  const page = await listDeliveries(principal.accountId, params.id!, query, now.getTime());
  return cursorPage('deliveries', page.deliveries, query.limit, page.nextCursor);
});
