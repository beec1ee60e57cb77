import { sessionEndpoint } from '#shared/accounts/endpoint.ts';
import { ok } from '#shared/platform/http/reply.ts';
import { changeMemberRole } from '#shared/people/service.ts';
import { team } from './contract.ts';

export const handler = sessionEndpoint(team.update, async ({ principal, params, body, now }) =>
  ok({ data: await changeMemberRole(principal, params.id!, body.role, now) }),
);
