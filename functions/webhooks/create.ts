import { createWebhook } from '#shared/webhooks/service.ts';
import { endpoint } from '#shared/accounts/endpoint.ts';
import { created } from '#shared/platform/http/reply.ts';
import { webhooks } from './contract.ts';

export const handler = endpoint(webhooks.create, async ({ principal, body, now }) => created(await createWebhook(principal.accountId, body, now.getTime())));
