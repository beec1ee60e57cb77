import { endpoint } from '#shared/http/endpoint.ts';
import { deleted } from '#shared/http/reply.ts';
import { deleteDomain } from '#shared/domain/domains.ts';
import { domains } from './contract.ts';

export const handler = endpoint(domains.delete, async ({ principal, params, now }) => {
  await deleteDomain(principal.accountId, params.id!, now);
  return deleted('Domain deleted');
});
