/**
 * The factory of routes with a caller: the platform's endpoint chain
 * (shared/platform/http/endpoint.ts) with the caller resolved first, by API
 * key or by a signed-in person's session. Kept in the accounts area because
 * who may call, with which permission or role and at what rate, is the
 * account's keys, members and plan; the platform knows nothing of them.
 */
import { addLogContext } from '#shared/platform/log.ts';
import { AuthError } from '#shared/platform/errors.ts';
import { checked, httpEndpoint, type BodyOf, type LambdaHandler, type PublicInput, type QueryOf, type ReplyOf } from '#shared/platform/http/endpoint.ts';
import type { Endpoint } from '#shared/platform/http/contract.ts';
import type { Middleware } from '#shared/platform/http/middleware.ts';
import type { Reply } from '#shared/platform/http/reply.ts';
import type { Route } from '#shared/platform/http/routes.ts';
import { publicBase } from '#shared/platform/public-urls.ts';
import { authenticate, type Principal, type SessionPrincipal } from './api-keys.ts';
import { sessionTokenOf } from './session-cookie.ts';
import { authenticateSession } from './sessions.ts';

/** Input of an endpoint with a caller: also the authenticated caller. */
export interface EndpointInput<Body, Query> extends PublicInput<Body, Query> {
  principal: Principal;
}

/** Input of a `session` route: the caller is always a signed-in person. */
export interface SessionInput<Body, Query> extends PublicInput<Body, Query> {
  principal: SessionPrincipal;
}

/** Methods a browser sends across sites without asking (no preflight needed): the only ones a cookie may authenticate without a matching `Origin`. */
const SAFE_METHODS = new Set(['GET', 'HEAD']);

/**
 * A cookie goes with every request the browser makes to this origin, whoever
 * wrote the page: a state-changing request must show it comes from the
 * deployment's own pages (the dashboard). SameSite=Strict already keeps the
 * cookie off other sites' requests; this holds also where it does not (an
 * old browser, a page on a sibling subdomain, which is same-site).
 */
function checkOrigin(method: string, origin: string | undefined): void {
  if (SAFE_METHODS.has(method)) return;
  if (origin !== new URL(publicBase()).origin) {
    throw new AuthError('FORBIDDEN', "A signed-in request that changes something must come from the dashboard's own origin");
  }
}

/**
 * Resolves the caller and counts the request: `x-api-key` when the request
 * carries one (the key decides, even beside a session cookie), else the
 * session cookie. Key routes take either; `session` routes take the session
 * only, and any key is 403: people are managed by people. A key is checked
 * for the route's permission in one DynamoDB call (`authenticate`); a
 * session for the route's `role`, and, on requests other than GET and HEAD,
 * for its `Origin` (`authenticateSession`).
 */
export function authentication(route: Route): Middleware {
  return {
    before: async (request) => {
      const state = request.context.postlane;
      const key = request.event.headers?.['x-api-key'];
      const token = key === undefined ? sessionTokenOf(request.event.cookies) : undefined;
      let caller: { principal: Principal; window: NonNullable<typeof state.rateWindow> };
      if (route.auth === 'session' && key !== undefined) {
        throw new AuthError('FORBIDDEN', 'This route takes a signed-in person, not an API key: people are managed by people');
      } else if (token === undefined) {
        if (route.auth === 'session') throw new AuthError('UNAUTHORIZED', 'Not signed in, or the session has ended: sign in again');
        caller = await authenticate(key, state.now, route.permission);
      } else {
        checkOrigin(request.event.requestContext?.http?.method ?? 'GET', request.event.headers?.origin);
        caller = await authenticateSession(token, state.now, route.role);
      }
      state.principal = caller.principal;
      state.rateWindow = caller.window;
      addLogContext({ accountId: caller.principal.accountId });
    },
  };
}

/**
 * A Lambda handler for a `key` route (an API key or a session), its input typed by the contract's schemas.
 *
 * `export const handler = endpoint(contacts.get, ({ principal, params }) => ...)`
 */
export function endpoint<E extends Endpoint>(contract: E, fn: (input: EndpointInput<BodyOf<E>, QueryOf<E>>) => Promise<ReplyOf<E>>): LambdaHandler {
  const route = checked(contract, 'key');
  return httpEndpoint(
    route,
    (input, state) => fn({ ...(input as PublicInput<BodyOf<E>, QueryOf<E>>), principal: state.principal as Principal }) as Promise<Reply>,
    authentication(route),
  );
}

/**
 * A Lambda handler for a `session` route (the team, the session itself): its
 * principal is a signed-in person's.
 *
 * `export const handler = sessionEndpoint(session.get, ({ principal }) => ...)`
 */
export function sessionEndpoint<E extends Endpoint>(contract: E, fn: (input: SessionInput<BodyOf<E>, QueryOf<E>>) => Promise<ReplyOf<E>>): LambdaHandler {
  const route = checked(contract, 'session');
  return httpEndpoint(
    route,
    (input, state) => fn({ ...(input as PublicInput<BodyOf<E>, QueryOf<E>>), principal: state.principal as SessionPrincipal }) as Promise<Reply>,
    authentication(route),
  );
}
