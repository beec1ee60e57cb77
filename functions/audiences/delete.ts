import { endpoint } from '#shared/accounts/endpoint.ts';
import { deleted } from '#shared/platform/http/reply.ts';
import { deleteAudience } from '#shared/audiences/service.ts';
import { audiences } from './contract.ts';

export const handler = endpoint(audiences.delete, async ({ principal, params, now }) => {
  await deleteAudience(principal.accountId, params.id!, now);
  return deleted('Audience deleted; its contacts were kept');
});
