import { getWebhook } from '#shared/webhooks/service.ts';
import { endpoint } from '#shared/accounts/endpoint.ts';
import { ok } from '#shared/platform/http/reply.ts';
import { webhooks } from './contract.ts';

export const handler = endpoint(webhooks.get, async ({ principal, params }) => ok({ data: await getWebhook(principal.accountId, params.id!) }));
