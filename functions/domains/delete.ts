import { endpoint } from '#shared/accounts/endpoint.ts';
import { deleted } from '#shared/platform/http/reply.ts';
import { deleteDomain } from '#shared/domains/service.ts';
import { domains } from './contract.ts';

export const handler = endpoint(domains.delete, async ({ principal, params, now }) => {
  await deleteDomain(principal.accountId, params.id!, now);
  return deleted('Domain deleted');
});
