import { updateWebhook } from '#shared/webhooks/service.ts';
import { endpoint } from '#shared/accounts/endpoint.ts';
import { ok } from '#shared/platform/http/reply.ts';
import { webhooks } from './contract.ts';

export const handler = endpoint(webhooks.update, async ({ principal, params, body, now }) =>
  ok({ data: await updateWebhook(principal.accountId, params.id!, body, now.getTime()) }),
);
