import { getWebhook } from '#shared/domain/webhooks.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { ok } from '#shared/http/reply.ts';
import { webhooks } from './contract.ts';

export const handler = endpoint(webhooks.get, async ({ principal, params }) => ok({ data: await getWebhook(principal.accountId, params.id!) }));
