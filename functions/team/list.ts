import { sessionEndpoint } from '#shared/accounts/endpoint.ts';
import { ok } from '#shared/platform/http/reply.ts';
import { listMembers } from '#shared/people/service.ts';
import { team } from './contract.ts';

export const handler = sessionEndpoint(team.list, async ({ principal, query }) => ok({ ...(await listMembers(principal.accountId, query.page, query.limit)) }));
