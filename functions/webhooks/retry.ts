import { retryDelivery } from '#shared/webhooks/service.ts';
import { endpoint } from '#shared/accounts/endpoint.ts';
import { ok } from '#shared/platform/http/reply.ts';
import { webhooks } from './contract.ts';

export const handler = endpoint(webhooks.retry, async ({ principal, params, now }) =>
  ok({ data: await retryDelivery(principal.accountId, params.id!, params.deliveryId!, now.getTime()) }),
);
