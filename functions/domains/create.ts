import { endpoint } from '#shared/http/endpoint.ts';
import { created } from '#shared/http/reply.ts';
import { createDomain } from '#shared/domain/domains.ts';
import { domains } from './contract.ts';

export const handler = endpoint(domains.create, async ({ principal, body, now }) => created(await createDomain(principal.accountId, body, now)));
