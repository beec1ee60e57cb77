import { endpoint } from '#shared/accounts/endpoint.ts';
import { actorOf } from '#shared/accounts/service.ts';
import { deleted } from '#shared/platform/http/reply.ts';
import { deleteDomain } from '#shared/domains/service.ts';
import { configuredVerifier } from '#shared/domains/verification.ts';
import { domains } from './contract.ts';

export const handler = endpoint(domains.delete, async ({ principal, params, now }) => {
  await deleteDomain(principal.accountId, params.id!, now, configuredVerifier(), actorOf(principal));
  return deleted('Domain deleted');
});
