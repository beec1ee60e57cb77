import { deleteWebhook } from '#shared/webhooks/service.ts';
import { endpoint } from '#shared/accounts/endpoint.ts';
import { deleted } from '#shared/platform/http/reply.ts';
import { webhooks } from './contract.ts';

export const handler = endpoint(webhooks.delete, async ({ principal, params }) => {
  await deleteWebhook(principal.accountId, params.id!);
  return deleted('Webhook deleted');
});
