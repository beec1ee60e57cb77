import { retryDelivery } from '#shared/webhooks/service.ts';
import { endpoint } from '#shared/platform/http/endpoint.ts';
import { ok } from '#shared/platform/http/reply.ts';
import { webhooks } from './contract.ts';

export const handler = endpoint(webhooks.retry, async ({ principal, params, now }) =>
  ok({ data: await retryDelivery(principal.accountId, params.id!, params.deliveryId!, now.getTime()) }),
);
