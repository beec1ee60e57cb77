import { endpoint } from '#shared/http/endpoint.ts';
import { ok } from '#shared/http/reply.ts';
import { getDomain } from '#shared/domain/domains.ts';
import { domains } from './contract.ts';

export const handler = endpoint(domains.get, async ({ principal, params, now }) => ok({ data: await getDomain(principal.accountId, params.id!, now) }));
