import { endpoint } from '#shared/http/endpoint.ts';
import { ok } from '#shared/http/reply.ts';
import { cancelBroadcast } from '#shared/domain/broadcasts.ts';
import { broadcasts } from './contract.ts';

export const handler = endpoint(broadcasts.cancel, async ({ principal, params, now }) =>
  ok({ data: await cancelBroadcast(principal.accountId, params.id!, now) }),
);
