import { listWebhooks } from '#shared/webhooks/service.ts';
import { endpoint } from '#shared/accounts/endpoint.ts';
import { ok } from '#shared/platform/http/reply.ts';
import { webhooks } from './contract.ts';

export const handler = endpoint(webhooks.list, async ({ principal }) => ok({ webhooks: await listWebhooks(principal.accountId) }));
