import { endpoint } from '#shared/accounts/endpoint.ts';
import { actorOf } from '#shared/accounts/service.ts';
import { createKey, managerOf } from '#shared/accounts/key-management.ts';
import { created } from '#shared/platform/http/reply.ts';
import { apiKeys } from './contract.ts';

export const handler = endpoint(apiKeys.create, async ({ principal, body, now }) =>
  created(await createKey(managerOf(principal, actorOf(principal)), body, now)),
);
