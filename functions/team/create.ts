import { sessionEndpoint } from '#shared/accounts/endpoint.ts';
import { created } from '#shared/platform/http/reply.ts';
import { addTeamMember } from '#shared/people/service.ts';
import { team } from './contract.ts';

export const handler = sessionEndpoint(team.create, async ({ principal, body, now }) => created(await addTeamMember(principal, body, now)));
