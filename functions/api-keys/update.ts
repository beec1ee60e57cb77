import { endpoint } from '#shared/accounts/endpoint.ts';
import { actorOf } from '#shared/accounts/service.ts';
import { managerOf, updateKey } from '#shared/accounts/key-management.ts';
import { ok } from '#shared/platform/http/reply.ts';
import { apiKeys } from './contract.ts';

export const handler = endpoint(apiKeys.update, async ({ principal, params, body, now }) =>
  ok({ data: await updateKey(managerOf(principal, actorOf(principal)), params.id!, body, now) }),
);
