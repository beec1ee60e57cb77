import { endpoint } from '#shared/accounts/endpoint.ts';
import { ok } from '#shared/platform/http/reply.ts';
import { cancelBroadcast } from '#shared/broadcasts/service.ts';
import { broadcasts } from './contract.ts';

export const handler = endpoint(broadcasts.cancel, async ({ principal, params, now }) =>
  ok({ data: await cancelBroadcast(principal.accountId, params.id!, now) }),
);
