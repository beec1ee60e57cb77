import { endpoint } from '#shared/http/endpoint.ts';
import { deleted } from '#shared/http/reply.ts';
import { deleteBroadcast } from '#shared/domain/broadcasts.ts';
import { broadcasts } from './contract.ts';

export const handler = endpoint(broadcasts.delete, async ({ principal, params }) => {
  await deleteBroadcast(principal.accountId, params.id!);
  return deleted('Broadcast deleted');
});
