import { publicEndpoint } from '#shared/platform/http/endpoint.ts';
import { ok, withCookies } from '#shared/platform/http/reply.ts';
import { sessionCookie } from '#shared/accounts/session-cookie.ts';
import { startSession } from '#shared/people/service.ts';
import { session } from './contract.ts';

export const handler = publicEndpoint(session.create, async ({ body, now }) => {
  const started = await startSession(body, now);
  return withCookies(ok({ data: started.session }), [sessionCookie(started.token)]);
});
