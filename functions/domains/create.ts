import { endpoint } from '#shared/http/endpoint.ts';
import { created } from '#shared/http/reply.ts';
import { createDomainBody } from '#shared/schemas/domains.ts';
import { createDomain } from '#shared/domain/domains.ts';

export const handler = endpoint('domains/create', { body: createDomainBody }, async ({ principal, body, now }) =>
  created(await createDomain(principal.accountId, body, now)));
