import { listDeliveries } from '#shared/domain/webhooks.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { cursorPage } from '#shared/http/reply.ts';
import { webhooks } from './contract.ts';

export const handler = endpoint(webhooks.deliveries, async ({ principal, params, query, now }) => {
  const page = await listDeliveries(principal.accountId, params.id!, query, now.getTime());
  return cursorPage('deliveries', page.deliveries, query.limit, page.nextCursor);
});
