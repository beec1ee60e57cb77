import { sendTestEvent } from '#shared/webhooks/service.ts';
import { endpoint } from '#shared/accounts/endpoint.ts';
import { ok } from '#shared/platform/http/reply.ts';
import { webhooks } from './contract.ts';

export const handler = endpoint(webhooks.sendTest, async ({ principal, params, now }) =>
  ok({ data: await sendTestEvent(principal.accountId, params.id!, now.getTime()) }),
);
