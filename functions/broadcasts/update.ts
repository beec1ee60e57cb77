import { endpoint } from '#shared/accounts/endpoint.ts';
import { ok } from '#shared/platform/http/reply.ts';
import { updateBroadcast } from '#shared/broadcasts/service.ts';
import { broadcasts } from './contract.ts';

export const handler = endpoint(broadcasts.update, async ({ principal, params, body, now }) =>
  ok({ data: await updateBroadcast(principal.accountId, params.id!, body, now) }),
);
