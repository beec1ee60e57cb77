import { sessionEndpoint } from '#shared/accounts/endpoint.ts';
import { clearedSessionCookie } from '#shared/accounts/session-cookie.ts';
import { ok, withCookies } from '#shared/platform/http/reply.ts';
import { signOut } from '#shared/people/service.ts';
import { session } from './contract.ts';

export const handler = sessionEndpoint(session.delete, async ({ principal }) => {
  await signOut(principal);
  return withCookies(ok({ message: 'Signed out' }), [clearedSessionCookie()]);
});
