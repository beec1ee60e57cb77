import { sessionEndpoint } from '#shared/accounts/endpoint.ts';
import { ok } from '#shared/platform/http/reply.ts';
import { currentSession } from '#shared/people/service.ts';
import { session } from './contract.ts';

export const handler = sessionEndpoint(session.get, async ({ principal }) => ok({ data: await currentSession(principal) }));
