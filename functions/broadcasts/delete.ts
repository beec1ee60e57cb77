import { endpoint } from '#shared/accounts/endpoint.ts';
import { deleted } from '#shared/platform/http/reply.ts';
import { deleteBroadcast } from '#shared/broadcasts/service.ts';
import { broadcasts } from './contract.ts';

export const handler = endpoint(broadcasts.delete, async ({ principal, params }) => {
  await deleteBroadcast(principal.accountId, params.id!);
  return deleted('Broadcast deleted');
});
