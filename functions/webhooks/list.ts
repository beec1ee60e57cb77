import { listWebhooks } from '#shared/domain/webhooks.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { ok } from '#shared/http/reply.ts';
import { webhooks } from './contract.ts';

export const handler = endpoint(webhooks.list, async ({ principal }) => ok({ webhooks: await listWebhooks(principal.accountId) }));
