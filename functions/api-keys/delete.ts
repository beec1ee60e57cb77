import { endpoint } from '#shared/accounts/endpoint.ts';
import { actorOf } from '#shared/accounts/service.ts';
import { managerOf, revokeKey } from '#shared/accounts/key-management.ts';
import { deleted } from '#shared/platform/http/reply.ts';
import { apiKeys } from './contract.ts';

export const handler = endpoint(apiKeys.delete, async ({ principal, params, now }) => {
  await revokeKey(managerOf(principal, actorOf(principal)), params.id!, now);
  return deleted('API key revoked');
});
