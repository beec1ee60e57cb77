import middy from '@middy/core';
import type * as v from 'valibot';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { Principal } from '#shared/domain/api-keys.ts';
import { authentication, httpResponse, jsonBody, rateLimit, type EndpointContext, type Middleware } from './middleware.ts';
import { parseInput } from './validation.ts';
import { DEFAULT_MAX_BODY_BYTES, matchRoute, routesOf, type HandlerName, type Route } from './routes.ts';
import { errorReply } from './error-envelope.ts';
import { PostlaneError } from '#shared/errors.ts';
import type { Reply } from './reply.ts';

type Output<S> = S extends v.GenericSchema ? v.InferOutput<S> : undefined;

export interface EndpointInput<Body, Query> {
  principal: Principal;
  body: Body;
  query: Query;
  /** Path parameters, URL-decoded: `{id}` of `/api/contacts/{id}`. */
  params: Record<string, string>;
  now: Date;
}

export interface EndpointSchemas<BodySchema, QuerySchema> {
  body?: BodySchema;
  query?: QuerySchema;
}

export type LambdaHandler = (event: APIGatewayProxyEventV2, context: import('aws-lambda').Context) => Promise<APIGatewayProxyStructuredResultV2>;

function routeOf(handler: string): Route {
  const [route] = routesOf(handler);
  if (!route) throw new Error(`functions/${handler}.ts is not in the route table`);
  return route;
}

/**
 * Builds a Lambda handler with the shared middleware chain: envelope, auth,
 * rate limit, JSON body and validation, then `fn`. The route table supplies
 * auth, permission and body limit, so a handler file states only its schemas.
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
): LambdaHandler {
  const route = routeOf(handler);
  const chain: Middleware[] = [httpResponse(), authentication(route), rateLimit()];
  if (schemas.body) chain.push(jsonBody(route.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES));

  const lambda = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 | Reply, Error, EndpointContext>();
  for (const middleware of chain) lambda.use(middleware);
  return lambda.handler(async (event, context) => {
    const state = context.postlane;
    const body = schemas.body ? parseInput(schemas.body, state.body) : undefined;
    const query = schemas.query ? parseInput(schemas.query, event.queryStringParameters ?? {}) : undefined;
    return fn({
      principal: state.principal!,
      body: body as Output<BodySchema>,
      query: query as Output<QuerySchema>,
      params: (event.pathParameters ?? {}) as Record<string, string>,
      now: state.now,
    });
  }) as unknown as LambdaHandler;
}

/**
 * The handler for requests no route matches (API Gateway's `$default` route and
 * the local server): 405 METHOD_NOT_ALLOWED when the path exists with other
 * methods, else 404 NOT_FOUND, both in the envelope.
 */
export function fallbackEndpoint(): LambdaHandler {
  return middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 | Reply, Error, EndpointContext>()
    .use(httpResponse())
    .handler(async (event) => {
      const method = event.requestContext?.http?.method ?? 'GET';
      const match = matchRoute(method, event.rawPath ?? '/');
      if (match.kind === 'method-not-allowed') {
        const error = new PostlaneError('METHOD_NOT_ALLOWED', `${method} is not allowed here; use ${match.allowed.join(', ')}`);
        return { ...errorReply(error), headers: { Allow: match.allowed.join(', ') } };
      }
      throw new PostlaneError('NOT_FOUND', `No route for ${method} ${event.rawPath ?? '/'}`);
    }) as unknown as LambdaHandler;
}
