import { createWebhook } from '#shared/domain/webhooks.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { created } from '#shared/http/reply.ts';
import { webhooks } from './contract.ts';

export const handler = endpoint(webhooks.create, async ({ principal, body, now }) => created(await createWebhook(principal.accountId, body, now.getTime())));
