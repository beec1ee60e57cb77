import { endpoint } from '#shared/http/endpoint.ts';
import { ok } from '#shared/http/reply.ts';
import { updateBroadcast } from '#shared/domain/broadcasts.ts';
import { broadcasts } from './contract.ts';

export const handler = endpoint(broadcasts.update, async ({ principal, params, body, now }) =>
  ok({ data: await updateBroadcast(principal.accountId, params.id!, body, now) }),
);
