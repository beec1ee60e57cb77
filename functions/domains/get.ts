import { endpoint } from '#shared/accounts/endpoint.ts';
import { actorOf } from '#shared/accounts/service.ts';
import { ok } from '#shared/platform/http/reply.ts';
import { getDomain } from '#shared/domains/service.ts';
import { configuredVerifier } from '#shared/domains/verification.ts';
import { domains } from './contract.ts';

export const handler = endpoint(domains.get, async ({ principal, params, now }) =>
  ok({ data: await getDomain(principal.accountId, params.id!, now, configuredVerifier(), actorOf(principal)) }),
);
