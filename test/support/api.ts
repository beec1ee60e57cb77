/**
 * Two ways to reach a handler in tests: `request` over real HTTP through the
 * local server (routing, event shape, headers and all), and `invoke` straight
 * into one handler module with the same event, for what HTTP cannot set up.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { buildHttpApiEvent, lambdaContext, loadHandler, type RouteTarget } from '#dev/local/http-event.ts';
import { routesOf } from '#shared/platform/http/routes.ts';
import { ROUTES } from '#functions/routes.ts';
import type { LocalHttpServer } from '#dev/local/http-server.ts';
import { assertDocumented } from './contract.ts';

let api: Promise<LocalHttpServer> | undefined;

/** The worker's one local API server, started on first use on a free port. */
export function startApi(): Promise<LocalHttpServer> {
  api ??= import('#dev/local/http-server.ts').then(({ startHttpServer }) => startHttpServer({ port: Number(process.env.TEST_API_PORT ?? 0) }));
  return api;
}

/** Closes the server; test/support/setup.ts calls it after each file. */
export async function stopApi(): Promise<void> {
  if (!api) return;
  const server = await api;
  api = undefined;
  await server.close();
}

export interface RequestOptions {
  /** Sent as `x-api-key`, also when empty. */
  key?: string;
  /** Sent as JSON with `content-type: application/json`. */
  body?: unknown;
  /** Sent byte for byte, with no content type unless `headers` gives one. */
  rawBody?: string | Uint8Array;
  headers?: Record<string, string>;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  /** Parsed when the response is JSON, else the text. */
  body: any;
}

/**
 * A real HTTP request to the local API.
 *
 * `const { status, body } = await request('POST', '/api/audiences', { key, body: { name: 'Main' } })`
 */
export async function request(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> {
  const { url } = await startApi();
  const headers = new Headers();
  if (options.key !== undefined) headers.set('x-api-key', options.key);
  if (options.body !== undefined && options.rawBody === undefined) headers.set('content-type', 'application/json');
  for (const [name, value] of Object.entries(options.headers ?? {})) headers.set(name, value);
  // Bytes, not a string: fetch would add `content-type: text/plain` to a string.
  const payload =
    options.rawBody !== undefined ? Buffer.from(options.rawBody) : options.body !== undefined ? Buffer.from(JSON.stringify(options.body)) : undefined;

  const response = await fetch(`${url}${path}`, { method, headers, ...(payload ? { body: payload } : {}) });
  const text = await response.text();
  assertDocumented({
    method,
    path: new URL(response.url).pathname,
    status: response.status,
    contentType: response.headers.get('content-type'),
    body: text,
    header: (name) => response.headers.get(name) ?? undefined,
  });
  const isJson = /\bjson\b/i.test(response.headers.get('content-type') ?? '') && text !== '';
  return { status: response.status, headers: response.headers, body: isJson ? JSON.parse(text) : text };
}

export type EventOverrides = Partial<Omit<APIGatewayProxyEventV2, 'requestContext'>> & {
  requestContext?: Partial<APIGatewayProxyEventV2['requestContext']>;
};

/**
 * Calls `functions/<handler>.ts` directly with the event the local server
 * would build for its route; `overrides` replace parts of it (headers are
 * merged, path parameters also fill the path). Resolves to the handler's own
 * result, unparsed. A handler outside the route table (system/fallback) is
 * invoked as the `$default` route.
 *
 * `const result = await invoke('contacts/get', { headers: { 'x-api-key': key }, pathParameters: { id } })`
 */
export async function invoke(handler: string, overrides: EventOverrides = {}): Promise<APIGatewayProxyStructuredResultV2> {
  const { headers, requestContext, ...rest } = overrides;
  const [route] = routesOf(handler, ROUTES);
  const template = route?.path ?? '/';
  const path = overrides.rawPath ?? template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(overrides.pathParameters?.[name] ?? name));
  const target: RouteTarget = route
    ? {
        handler,
        routeKey: `${route.method} ${route.path}`,
        ...(overrides.pathParameters ? { pathParameters: overrides.pathParameters as Record<string, string> } : {}),
      }
    : { handler, routeKey: '$default' };
  const query = overrides.rawQueryString ? `?${overrides.rawQueryString}` : '';
  const event = buildHttpApiEvent(
    {
      method: route?.method ?? 'GET',
      url: `${path}${query}`,
      headers: { host: 'local.test', ...headers },
      ...(overrides.body !== undefined ? { body: Buffer.from(overrides.body, overrides.isBase64Encoded ? 'base64' : 'utf8') } : {}),
    },
    target,
  );
  const merged: APIGatewayProxyEventV2 = { ...event, ...rest, requestContext: { ...event.requestContext, ...requestContext } };
  const fn = await loadHandler(target.handler);
  const result = await fn(merged, lambdaContext(target.handler));
  const body = result.body === undefined ? '' : result.isBase64Encoded ? Buffer.from(result.body, 'base64').toString('utf8') : result.body;
  assertDocumented({
    method: merged.requestContext.http.method,
    path: merged.rawPath,
    status: result.statusCode ?? 200,
    contentType: contentTypeOf(result.headers),
    body,
    header: (name) => headerOf(result.headers, name),
  });
  return result;
}

function headerOf(headers: APIGatewayProxyStructuredResultV2['headers'], wanted: string): string | undefined {
  const entry = Object.entries(headers ?? {}).find(([name]) => name.toLowerCase() === wanted.toLowerCase());
  return entry === undefined ? undefined : String(entry[1]);
}

function contentTypeOf(headers: APIGatewayProxyStructuredResultV2['headers']): string | null {
  return headerOf(headers, 'content-type') ?? null;
}
