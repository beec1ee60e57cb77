import { updateWebhook } from '#shared/domain/webhooks.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { ok } from '#shared/http/reply.ts';
import { webhooks } from './contract.ts';

export const handler = endpoint(webhooks.update, async ({ principal, params, body, now }) =>
  ok({ data: await updateWebhook(principal.accountId, params.id!, body, now.getTime()) }),
);
