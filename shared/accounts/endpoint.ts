/**
 * The factory of routes behind `x-api-key`: the platform's endpoint chain
 * (shared/platform/http/endpoint.ts) with the caller resolved first. Kept in
 * the accounts area because who may call, with which permission and at what
 * rate, is the account's keys and plan; the platform knows nothing of either.
 */
import { addLogContext } from '#shared/platform/log.ts';
import { checked, httpEndpoint, type BodyOf, type LambdaHandler, type PublicInput, type QueryOf, type ReplyOf } from '#shared/platform/http/endpoint.ts';
import type { Endpoint } from '#shared/platform/http/contract.ts';
import type { Middleware } from '#shared/platform/http/middleware.ts';
import type { Reply } from '#shared/platform/http/reply.ts';
import type { Route } from '#shared/platform/http/routes.ts';
import { authenticate, type Principal } from './api-keys.ts';

/** Input of an endpoint behind `x-api-key`: also the authenticated caller. */
export interface EndpointInput<Body, Query> extends PublicInput<Body, Query> {
  principal: Principal;
}

/**
 * Resolves `x-api-key` to a principal, enforces the route's permission and
 * counts the request against the key's limits: one DynamoDB call (`authenticate`).
 */
export function authentication(route: Route): Middleware {
  return {
    before: async (request) => {
      const state = request.context.postlane;
      const { principal, window } = await authenticate(request.event.headers?.['x-api-key'], state.now, route.permission);
      state.principal = principal;
      state.rateWindow = window;
      addLogContext({ accountId: principal.accountId });
    },
  };
}

/**
 * A Lambda handler for an endpoint behind `x-api-key`, its input typed by the contract's schemas.
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
