/**
 * What API Gateway does around a Lambda handler, for the local server and the
 * tests: an HTTP request becomes an HTTP API payload v2.0 event, the route
 * table picks the handler, and the handler's result becomes the HTTP response.
 */
import { randomUUID } from 'node:crypto';
import { isUtf8 } from 'node:buffer';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2, Context } from 'aws-lambda';
import { edgeRoutes, FALLBACK_HANDLER, matchRoute, type Route } from '#shared/platform/http/routes.ts';
import { ROUTES } from '#functions/routes.ts';
import type { LambdaHandler } from '#shared/platform/http/endpoint.ts';
import { invokedAs } from './invocation.ts';

/**
 * Lambda's limit on a synchronous invocation's payload: the event as JSON, so
 * a body counts as the event carries it (JSON-escaped, or base64), headers
 * and request context included (Lambda quotas: "Invocation payload (request
 * and response) 6 MB each for synchronous").
 */
export const LAMBDA_MAX_PAYLOAD_BYTES = 6 * 1024 * 1024;

/** What Lambda measures against LAMBDA_MAX_PAYLOAD_BYTES. */
export function invocationPayloadBytes(event: APIGatewayProxyEventV2): number {
  return Buffer.byteLength(JSON.stringify(event));
}

/** HTTP API's integration timeout, fixed by AWS. */
const TIMEOUT_MS = 30_000;

export interface RouteTarget {
  /** Module under functions/. */
  handler: string;
  /** `GET /api/contacts/{id}`, or `$default` for the catch-all route. */
  routeKey: string;
  /** URL-decoded, as API Gateway passes them; absent when the route has none. */
  pathParameters?: Record<string, string>;
}

/**
 * The handler API Gateway would invoke, among the routes the stack gives it
 * (HEAD twins and CORS preflights included); unmatched requests go to the
 * `$default` route's fallback handler.
 */
export function routeRequest(method: string, rawPath: string, routes: readonly Route[] = ROUTES): RouteTarget {
  const match = matchRoute(method, rawPath, edgeRoutes(routes));
  if (match.kind !== 'route') return { handler: FALLBACK_HANDLER, routeKey: '$default' };
  const { route, params } = match;
  return {
    handler: route.handler,
    routeKey: `${route.method} ${route.path}`,
    ...(Object.keys(params).length > 0 ? { pathParameters: params } : {}),
  };
}

export interface HttpRequest {
  method: string;
  /** Path and query string as sent: `/api/contacts?limit=5`. */
  url: string;
  /** Names in any case; a repeated header as an array. */
  headers?: Record<string, string | string[] | undefined>;
  body?: Buffer;
  sourceIp?: string;
  now?: Date;
}

/** `21/Nov/2026:16:30:05 +0000`, API Gateway's `requestContext.time`. */
function clfTime(now: Date): string {
  const [, day, month, year, time] = now.toUTCString().split(' ');
  return `${day}/${month}/${year}:${time} +0000`;
}

/** Repeated values joined with commas, as API Gateway does for headers and query parameters. */
function joinRepeated(entries: Iterable<[string, string]>): Record<string, string> {
  const joined: Record<string, string> = {};
  for (const [name, value] of entries) joined[name] = name in joined ? `${joined[name]},${value}` : value;
  return joined;
}

function headerEntries(headers: HttpRequest['headers'] = {}): [string, string][] {
  return Object.entries(headers).flatMap(([name, value]) =>
    (value === undefined ? [] : Array.isArray(value) ? value : [value]).map((one): [string, string] => [name.toLowerCase(), one]),
  );
}

/**
 * The event API Gateway (HTTP API, payload 2.0) hands a Lambda for `request`
 * on `target`: lower-cased headers, cookies split out, query parameters decoded,
 * a body that is not UTF-8 in base64.
 */
export function buildHttpApiEvent(request: HttpRequest, target: RouteTarget): APIGatewayProxyEventV2 {
  const now = request.now ?? new Date();
  const queryStart = request.url.indexOf('?');
  const rawPath = queryStart === -1 ? request.url : request.url.slice(0, queryStart);
  const rawQueryString = queryStart === -1 ? '' : request.url.slice(queryStart + 1);
  const sourceIp = request.sourceIp ?? '127.0.0.1';

  const all = headerEntries(request.headers);
  const cookies = all
    .filter(([name]) => name === 'cookie')
    .flatMap(([, value]) =>
      value
        .split(';')
        .map((part) => part.trim())
        .filter(Boolean),
    );
  const headers = joinRepeated([...all.filter(([name]) => name !== 'cookie'), ['x-forwarded-for', sourceIp], ['x-forwarded-proto', 'http']]);
  const query = [...new URLSearchParams(rawQueryString)];
  const domainName = headers.host ?? 'localhost';
  const method = request.method.toUpperCase();
  const body = request.body && request.body.length > 0 ? request.body : undefined;
  const isBase64Encoded = body !== undefined && !isUtf8(body);

  return {
    version: '2.0',
    routeKey: target.routeKey,
    rawPath,
    rawQueryString,
    ...(cookies.length > 0 ? { cookies } : {}),
    headers,
    ...(query.length > 0 ? { queryStringParameters: joinRepeated(query) } : {}),
    ...(target.pathParameters ? { pathParameters: target.pathParameters } : {}),
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName,
      domainPrefix: domainName.split('.')[0]!,
      http: { method, path: rawPath, protocol: 'HTTP/1.1', sourceIp, userAgent: headers['user-agent'] ?? '' },
      requestId: randomUUID(),
      routeKey: target.routeKey,
      stage: '$default',
      time: clfTime(now),
      timeEpoch: now.getTime(),
    },
    ...(body ? { body: body.toString(isBase64Encoded ? 'base64' : 'utf8') } : {}),
    isBase64Encoded,
  };
}

/** The Lambda context of one invocation of `handler`; the names follow a deployed function's. */
export function lambdaContext(handler: string): Context {
  const functionName = `postlane-${handler.replaceAll('/', '-')}`;
  const deadline = Date.now() + TIMEOUT_MS;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `local/${functionName}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

const handlers = new Map<string, Promise<LambdaHandler>>();

/** `functions/<name>.ts`'s `handler`, imported once, as a warm Lambda keeps it. */
export function loadHandler(name: string): Promise<LambdaHandler> {
  let loading = handlers.get(name);
  if (!loading) {
    loading = import(new URL(`../../functions/${name}.ts`, import.meta.url).href).then((module: { handler?: LambdaHandler }) => {
      const { handler } = module;
      if (typeof handler !== 'function') throw new Error(`functions/${name}.ts exports no handler`);
      // Each call runs as an invocation of this function (dev/local/invocation.ts); the handler's own properties (its schemas) stay readable.
      return Object.assign(invokedAs(name, handler), handler);
    });
    loading.catch(() => handlers.delete(name));
    handlers.set(name, loading);
  }
  return loading;
}

export interface HttpResult {
  statusCode: number;
  headers: Record<string, string>;
  cookies: string[];
  body: Buffer;
}

/** What API Gateway answers when the function throws or times out. */
export const INTEGRATION_FAILURE: HttpResult = {
  statusCode: 500,
  headers: { 'content-type': 'application/json' },
  cookies: [],
  body: Buffer.from('{"message":"Internal Server Error"}'),
};

/**
 * The HTTP response API Gateway makes of a handler's result: a structured
 * result as given (body decoded when base64), anything else as a 200 JSON body.
 */
export function toHttpResult(result: APIGatewayProxyResultV2 | undefined): HttpResult {
  if (typeof result !== 'object' || result === null || !('statusCode' in result) || typeof result.statusCode !== 'number') {
    return { statusCode: 200, headers: { 'content-type': 'application/json' }, cookies: [], body: Buffer.from(JSON.stringify(result ?? null)) };
  }
  const headers = Object.fromEntries(Object.entries(result.headers ?? {}).map(([name, value]) => [name, String(value)]));
  const body = Buffer.from(result.body ?? '', result.isBase64Encoded ? 'base64' : 'utf8');
  return { statusCode: result.statusCode, headers, cookies: result.cookies ?? [], body };
}

/** Invokes the target's handler with the event as API Gateway would, including its answer to a thrown error. */
export async function invokeTarget(event: APIGatewayProxyEventV2, target: RouteTarget): Promise<{ result: HttpResult; error?: unknown }> {
  try {
    const handler = await loadHandler(target.handler);
    return { result: toHttpResult(await handler(event, lambdaContext(target.handler))) };
  } catch (error) {
    return { result: INTEGRATION_FAILURE, error };
  }
}
