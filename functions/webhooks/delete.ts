import { deleteWebhook } from '#shared/domain/webhooks.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { deleted } from '#shared/http/reply.ts';
import { webhooks } from './contract.ts';

export const handler = endpoint(webhooks.delete, async ({ principal, params }) => {
  await deleteWebhook(principal.accountId, params.id!);
  return deleted('Webhook deleted');
});
