import { sessionEndpoint } from '#shared/accounts/endpoint.ts';
import { ok } from '#shared/platform/http/reply.ts';
import { switchSessionAccount } from '#shared/people/service.ts';
import { session } from './contract.ts';

export const handler = sessionEndpoint(session.update, async ({ principal, body }) => ok({ data: await switchSessionAccount(principal, body.accountId) }));
