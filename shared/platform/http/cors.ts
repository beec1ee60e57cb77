/**
 * CORS for the routes the route table marks `cors` (the public form view and
 * submit): the same headers whether API Gateway or `npm start` serves them,
 * since both run these handlers. Allowed origins come from
 * CORS_ALLOWED_ORIGINS (`*`, the default, or a comma-separated list).
 * Credentials are never allowed: these routes take none, and keyed routes
 * have no preflight route at all, so a browser never gets to send a key.
 */
import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { config } from '#shared/platform/config.ts';
import { corsMethodsOf, type Route } from './routes.ts';
import { withRequestLog } from './request-log.ts';
import type { LambdaHandler } from './endpoint.ts';

/** How long a browser may cache a preflight answer (seconds). */
const PREFLIGHT_MAX_AGE = 600;
/** The one request header a form post from script needs beyond the safelisted ones. */
const ALLOWED_HEADERS = 'Content-Type';

/** The allowed origins: `'*'` for any, else the exact origins listed. */
export function allowedOrigins(setting: string = config.CORS_ALLOWED_ORIGINS): '*' | string[] {
  const origins = setting
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
  return origins.includes('*') ? '*' : origins;
}

/**
 * The CORS headers of an answer to `event`: `Access-Control-Allow-Origin` for
 * an allowed origin (`*` when any is), and `Vary: Origin` when the answer
 * depends on it.
 */
export function corsHeaders(event: APIGatewayProxyEventV2, allowed: '*' | string[] = allowedOrigins()): Record<string, string> {
  if (allowed === '*') return { 'Access-Control-Allow-Origin': '*' };
  const origin = event.headers?.origin;
  return origin && allowed.includes(origin) ? { 'Access-Control-Allow-Origin': origin, Vary: 'Origin' } : { Vary: 'Origin' };
}

/**
 * The handler of the OPTIONS routes (routes.ts `edgeRoutes`): 204 with the
 * methods the path's `cors` routes take. A disallowed origin gets the 204
 * without `Access-Control-Allow-Origin`, which the browser treats as a refusal.
 */
export function preflightEndpoint(routes: readonly Route[]): LambdaHandler {
  return withRequestLog(
    middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
      .use(httpHeaderNormalizer())
      .handler(async (event) => {
        // The route key is `OPTIONS <path template>`, as API Gateway and the local server set it.
        const path = event.routeKey.replace(/^OPTIONS /, '');
        return {
          statusCode: 204,
          headers: {
            ...corsHeaders(event),
            'Access-Control-Allow-Methods': corsMethodsOf(path, routes).join(', '),
            'Access-Control-Allow-Headers': ALLOWED_HEADERS,
            'Access-Control-Max-Age': String(PREFLIGHT_MAX_AGE),
          },
          body: '',
        };
      }) as unknown as LambdaHandler,
  );
}
