import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type * as v from 'valibot';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { Principal } from '#shared/domain/api-keys.ts';
import { PostlaneError } from '#shared/errors.ts';
import { authentication, httpResponse, rateLimit, requestBody, type EndpointContext, type Middleware, type RequestState } from './middleware.ts';
import { parseInput } from '#shared/schemas/parse.ts';
import { DEFAULT_MAX_BODY_BYTES, edgeRoutes, matchRoute, routesOf, type HandlerName, type Route } from './routes.ts';
import { errorReply } from './error-envelope.ts';
import type { Reply } from './reply.ts';
import { withRequestLog } from './request-log.ts';
import { inRegionScope } from '#shared/data/regions.ts';

type Output<S> = S extends v.GenericSchema ? v.InferOutput<S> : undefined;

/** What every endpoint function receives, validated. */
export interface PublicInput<Body, Query> {
  body: Body;
  query: Query;
  /** `GET`, `POST`, …; `HEAD` reaches the GET routes too. */
  method: string;
  /** Path parameters, URL-decoded: `{id}` of `/api/contacts/{id}`. */
  params: Record<string, string>;
  now: Date;
  /** The caller's address as API Gateway saw it. */
  sourceIp: string;
  /** Request headers, names lower-cased (@middy/http-header-normalizer); `content-type` is the bare media type on routes with a body. */
  headers: Record<string, string>;
}

/** Input of an endpoint behind `x-api-key`: also the authenticated caller. */
export interface EndpointInput<Body, Query> extends PublicInput<Body, Query> {
  principal: Principal;
}

export interface EndpointSchemas<BodySchema, QuerySchema> {
  body?: BodySchema;
  query?: QuerySchema;
}

export type LambdaHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/**
 * A route's handler with the schemas it validates against, so tools that walk
 * the route table (the fuzz tests, the OpenAPI description) read them from the
 * handler instead of restating them: `(await import('#functions/contacts/create.ts')).handler.schemas.body`.
 */
export type EndpointHandler = LambdaHandler & {
  readonly schemas: EndpointSchemas<v.GenericSchema | undefined, v.GenericSchema | undefined>;
};

function routeOf(handler: string, auth: Route['auth']): Route {
  const routes = routesOf(handler);
  if (routes.length === 0) throw new Error(`functions/${handler}.ts is not in the route table`);
  if (routes.some((route) => route.auth !== auth)) throw new Error(`functions/${handler}.ts must be built with the factory for ${auth} routes`);
  return routes[0]!;
}

/**
 * The middleware chain every endpoint shares: envelope, auth and rate limit
 * (keyed routes), body parsing, validation, then `fn`. The route table supplies
 * auth, permission, body limit and formats, so a handler file states only its schemas.
 */
function build(
  route: Route,
  schemas: EndpointSchemas<v.GenericSchema | undefined, v.GenericSchema | undefined>,
  fn: (input: PublicInput<unknown, unknown>, state: RequestState) => Promise<Reply>,
): EndpointHandler {
  // API Gateway's v2 payload and the local server lower-case header names already; a direct invocation (tests, another AWS service) may not.
  const chain: Middleware[] = [httpResponse({ cors: route.cors ?? false }), httpHeaderNormalizer() as Middleware];
  if (route.auth === 'key') chain.push(authentication(route), rateLimit());
  if (schemas.body) chain.push(...requestBody(route.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, route.bodyFormats));

  const lambda = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 | Reply, Error, EndpointContext>();
  for (const middleware of chain) lambda.use(middleware);
  const handler = lambda.handler(async (event, context) => {
    const state = context.postlane;
    return fn({
      body: schemas.body ? parseInput(schemas.body, state.body) : undefined,
      query: schemas.query ? parseInput(schemas.query, event.queryStringParameters ?? {}) : undefined,
      method: event.requestContext?.http?.method ?? 'GET',
      params: (event.pathParameters ?? {}) as Record<string, string>,
      now: state.now,
      sourceIp: event.requestContext?.http?.sourceIp ?? '',
      headers: Object.fromEntries(Object.entries(event.headers ?? {}).filter((entry): entry is [string, string] => entry[1] !== undefined)),
    }, state);
  }) as unknown as LambdaHandler;
  const logged = withRequestLog(handler);
  // Each invocation learns account homes afresh: a move takes effect on the next request.
  const scoped: LambdaHandler = (event, context) => inRegionScope(() => logged(event, context));
  return Object.assign(scoped, { schemas: { ...schemas } });
}

/**
 * A Lambda handler for a route behind `x-api-key`.
 *
 * `export const handler = endpoint('contacts/get', {}, ({ principal, params }) => ...)`
 */
export function endpoint<
  BodySchema extends v.GenericSchema | undefined = undefined,
  QuerySchema extends v.GenericSchema | undefined = undefined,
>(
  handler: HandlerName,
  schemas: EndpointSchemas<BodySchema, QuerySchema>,
  fn: (input: EndpointInput<Output<BodySchema>, Output<QuerySchema>>) => Promise<Reply>,
): EndpointHandler {
  return build(routeOf(handler, 'key'), schemas, (input, state) =>
    fn({ ...(input as PublicInput<Output<BodySchema>, Output<QuerySchema>>), principal: state.principal! }));
}

/** A Lambda handler for a public route (no key): public forms, unsubscribe and preference pages. */
export function publicEndpoint<
  BodySchema extends v.GenericSchema | undefined = undefined,
  QuerySchema extends v.GenericSchema | undefined = undefined,
>(
  handler: HandlerName,
  schemas: EndpointSchemas<BodySchema, QuerySchema>,
  fn: (input: PublicInput<Output<BodySchema>, Output<QuerySchema>>) => Promise<Reply>,
): EndpointHandler {
  return build(routeOf(handler, 'public'), schemas, (input) => fn(input as PublicInput<Output<BodySchema>, Output<QuerySchema>>));
}

/**
 * The handler for requests no route matches (API Gateway's `$default` route and
 * the local server): 405 METHOD_NOT_ALLOWED when the path exists with other
 * methods, else 404 NOT_FOUND, both in the envelope.
 */
export function fallbackEndpoint(): LambdaHandler {
  return withRequestLog(middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 | Reply, Error, EndpointContext>()
    .use(httpResponse())
    .handler(async (event) => {
      const method = event.requestContext?.http?.method ?? 'GET';
      const match = matchRoute(method, event.rawPath ?? '/', edgeRoutes());
      if (match.kind === 'method-not-allowed') {
        const error = new PostlaneError('METHOD_NOT_ALLOWED', `${method} is not allowed here; use ${match.allowed.join(', ')}`);
        return { ...errorReply(error), headers: { Allow: match.allowed.join(', ') } };
      }
      throw new PostlaneError('NOT_FOUND', `No route for ${method} ${event.rawPath ?? '/'}`);
    }) as unknown as LambdaHandler);
}
