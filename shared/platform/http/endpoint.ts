import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type * as v from 'valibot';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { PostlaneError } from '#shared/platform/errors.ts';
import { httpResponse, requestBody, type EndpointContext, type Middleware, type RequestState } from './middleware.ts';
import { parseInput } from '#shared/platform/schema/parse.ts';
import { DEFAULT_MAX_BODY_BYTES, edgeRoutes, matchRoute, type Route } from './routes.ts';
import type { Endpoint, EndpointSpec, RequestSchemas } from './contract.ts';
import { errorReply } from './error-envelope.ts';
import type { JsonReply, Reply } from './reply.ts';
import { withRequestLog } from './request-log.ts';
import { inRegionScope } from '#shared/platform/dynamodb/regions.ts';
import { callerAddress } from './caller-address.ts';

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
  /** The caller's address: CloudFront's word for it behind a distribution (verified by its secret header), else API Gateway's (`callerAddress`). */
  sourceIp: string;
  /** Request headers, names lower-cased (@middy/http-header-normalizer); `content-type` is the bare media type on routes with a body. */
  headers: Record<string, string>;
}

export type LambdaHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/**
 * What a handler may return: for each success status of the contract, a reply
 * whose body is the reply schema's output; any reply where the endpoint
 * answers pages (HTML, or JSON and HTML by the caller's Accept).
 */
export type ReplyOf<E extends EndpointSpec> = E['pageStatuses'] extends readonly number[]
  ? Reply
  : {
      [S in keyof E['responses'] & number]: E['responses'][S] extends v.GenericSchema ? JsonReply<S, v.InferOutput<E['responses'][S]>> : Reply;
    }[keyof E['responses'] & number];

export type BodyOf<E extends EndpointSpec> = Output<E['request']['body']>;
export type QueryOf<E extends EndpointSpec> = Output<E['request']['query']>;

/**
 * The middleware chain every endpoint shares: envelope, the caller's
 * `authentication` (keyed routes: shared/accounts/endpoint.ts), body parsing,
 * validation, then `fn`. The endpoint's contract supplies auth, permission,
 * schemas, body limit and formats, so a handler file states only what it does.
 */
export function httpEndpoint(
  route: Route & { request: RequestSchemas },
  fn: (input: PublicInput<unknown, unknown>, state: RequestState) => Promise<Reply>,
  authentication?: Middleware,
): LambdaHandler {
  const schemas = route.request;
  // API Gateway's v2 payload and the local server lower-case header names already; a direct invocation (tests, another AWS service) may not.
  const chain: Middleware[] = [httpResponse({ cors: route.cors ?? false }), httpHeaderNormalizer() as Middleware];
  if (authentication) chain.push(authentication);
  if (schemas.body) chain.push(...requestBody(route.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, route.bodyFormats));

  const lambda = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 | Reply, Error, EndpointContext>();
  for (const middleware of chain) lambda.use(middleware);
  const handler = lambda.handler(async (event, context) => {
    const state = context.postlane;
    return fn(
      {
        body: schemas.body ? parseInput(schemas.body, state.body) : undefined,
        query: schemas.query ? parseInput(schemas.query, event.queryStringParameters ?? {}) : undefined,
        method: event.requestContext?.http?.method ?? 'GET',
        params: (event.pathParameters ?? {}) as Record<string, string>,
        now: state.now,
        sourceIp: callerAddress(event),
        headers: Object.fromEntries(Object.entries(event.headers ?? {}).filter((entry): entry is [string, string] => entry[1] !== undefined)),
      },
      state,
    );
  }) as unknown as LambdaHandler;
  const logged = withRequestLog(handler);
  // Each invocation learns account homes afresh: a move takes effect on the next request.
  return (event, context) => inRegionScope(() => logged(event, context));
}

/** The contract, once it is known to declare the auth of the factory building it. */
export function checked(contract: Endpoint, auth: Route['auth']): Endpoint {
  if (contract.auth !== auth) throw new Error(`functions/${contract.handler}.ts must be built with the factory for ${contract.auth} routes`);
  return contract;
}

/** A Lambda handler for a public endpoint (no key): public forms, unsubscribe and preference pages. */
export function publicEndpoint<E extends Endpoint>(contract: E, fn: (input: PublicInput<BodyOf<E>, QueryOf<E>>) => Promise<ReplyOf<E>>): LambdaHandler {
  return httpEndpoint(checked(contract, 'public'), (input) => fn(input as PublicInput<BodyOf<E>, QueryOf<E>>) as Promise<Reply>);
}

/**
 * The handler for requests no route matches (API Gateway's `$default` route and
 * the local server): 405 METHOD_NOT_ALLOWED when the path exists with other
 * methods, else 404 NOT_FOUND, both in the envelope.
 */
export function fallbackEndpoint(routes: readonly Route[]): LambdaHandler {
  return withRequestLog(
    middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 | Reply, Error, EndpointContext>()
      .use(httpResponse())
      .handler(async (event) => {
        const method = event.requestContext?.http?.method ?? 'GET';
        const match = matchRoute(method, event.rawPath ?? '/', edgeRoutes(routes));
        if (match.kind === 'method-not-allowed') {
          const error = new PostlaneError('METHOD_NOT_ALLOWED', `${method} is not allowed here; use ${match.allowed.join(', ')}`);
          return { ...errorReply(error), headers: { Allow: match.allowed.join(', ') } };
        }
        throw new PostlaneError('NOT_FOUND', `No route for ${method} ${event.rawPath ?? '/'}`);
      }) as unknown as LambdaHandler,
  );
}
