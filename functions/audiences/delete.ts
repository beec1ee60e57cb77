import { endpoint } from '#shared/http/endpoint.ts';
import { deleted } from '#shared/http/reply.ts';
import { deleteAudience } from '#shared/domain/audiences.ts';
import { audiences } from './contract.ts';

export const handler = endpoint(audiences.delete, async ({ principal, params, now }) => {
  await deleteAudience(principal.accountId, params.id!, now);
  return deleted('Audience deleted; its contacts were kept');
});
