import { retryDelivery } from '#shared/domain/webhooks.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { ok } from '#shared/http/reply.ts';
import { webhooks } from './contract.ts';

export const handler = endpoint(webhooks.retry, async ({ principal, params, now }) =>
  ok({ data: await retryDelivery(principal.accountId, params.id!, params.deliveryId!, now.getTime()) }),
);
