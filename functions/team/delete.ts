import { sessionEndpoint } from '#shared/accounts/endpoint.ts';
import { deleted } from '#shared/platform/http/reply.ts';
import { removeTeamMember } from '#shared/people/service.ts';
import { team } from './contract.ts';

export const handler = sessionEndpoint(team.delete, async ({ principal, params, now }) => {
  await removeTeamMember(principal, params.id!, now);
  return deleted('Member removed');
});
