import { endpoint } from '#shared/accounts/endpoint.ts';
import { actorOf } from '#shared/accounts/service.ts';
import { created } from '#shared/platform/http/reply.ts';
import { createDomain } from '#shared/domains/service.ts';
import { configuredVerifier } from '#shared/domains/verification.ts';
import { domains } from './contract.ts';

export const handler = endpoint(domains.create, async ({ principal, body, now }) =>
  created(await createDomain(principal.accountId, body, now, configuredVerifier(), actorOf(principal))),
);
