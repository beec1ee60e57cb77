import { sendTestEvent } from '#shared/domain/webhooks.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { ok } from '#shared/http/reply.ts';
import { webhooks } from './contract.ts';

export const handler = endpoint(webhooks.sendTest, async ({ principal, params, now }) =>
  ok({ data: await sendTestEvent(principal.accountId, params.id!, now.getTime()) }),
);
