/**
 * The only list of routes. The CDK stack makes one function and one API route
 * per entry, the local server dispatches by it, and the tests walk it.
 * Adding an endpoint is one line here plus its handler in functions/<handler>.ts.
 */

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/**
 * DynamoDB actions a handler calls (transactions need the actions they contain).
 * The stack grants exactly these, plus what authentication and rate limiting
 * need on keyed routes (KEYED_ROUTE_TABLE_ACTIONS), and nothing else.
 */
export type TableAction = 'GetItem' | 'BatchGetItem' | 'Query' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'ConditionCheckItem';

export type SesAction = 'SendEmail';

/** Key lookup (BatchGetItem), rate-limit window and last-used stamp (UpdateItem). */
export const KEYED_ROUTE_TABLE_ACTIONS: readonly TableAction[] = ['BatchGetItem', 'UpdateItem'];

export interface Route {
  method: HttpMethod;
  /** API Gateway path syntax: `/api/contacts/{id}`. */
  path: string;
  /** Module under functions/ exporting `handler`. */
  handler: string;
  /** `key`: needs `x-api-key`; `public`: open (public forms). */
  auth: 'key' | 'public';
  /** The least key permission that may call it: `sending` keys reach only the send endpoints. */
  permission: 'full' | 'sending';
  table: readonly TableAction[];
  /** SES v2 actions the handler calls; the stack grants exactly these. */
  ses?: readonly SesAction[];
  /** Largest accepted request body in bytes; larger ones get 413. */
  maxBodyBytes?: number;
  /** Accepted body formats; JSON only unless the route also takes HTML form posts. */
  bodyFormats?: readonly ('json' | 'form')[];
}

const key = { auth: 'key', permission: 'full' } as const;

export const DEFAULT_MAX_BODY_BYTES = 256 * 1024;
/** 1,000 contacts with custom fields; Lambda refuses synchronous payloads over 6 MB. */
const BULK_MAX_BODY_BYTES = 5 * 1024 * 1024;

export const ROUTES = [
  { method: 'POST', path: '/api/audiences', handler: 'audiences/create', ...key, table: ['PutItem', 'UpdateItem'] },
  { method: 'GET', path: '/api/audiences', handler: 'audiences/list', ...key, table: ['Query', 'BatchGetItem', 'GetItem'] },
  { method: 'GET', path: '/api/audiences/{id}', handler: 'audiences/get', ...key, table: ['BatchGetItem'] },
  { method: 'GET', path: '/api/audiences/{id}/stats', handler: 'audiences/stats', ...key, table: ['GetItem'] },
  { method: 'PATCH', path: '/api/audiences/{id}', handler: 'audiences/update', ...key, table: ['UpdateItem'] },
  { method: 'DELETE', path: '/api/audiences/{id}', handler: 'audiences/delete', ...key, table: ['DeleteItem', 'UpdateItem'] },

  { method: 'POST', path: '/api/contacts', handler: 'contacts/create', ...key, table: ['PutItem', 'UpdateItem', 'ConditionCheckItem'] },
  { method: 'GET', path: '/api/contacts', handler: 'contacts/list', ...key, table: ['Query', 'GetItem'] },
  { method: 'POST', path: '/api/contacts/bulk', handler: 'contacts/bulk-import', ...key, table: ['BatchGetItem', 'PutItem', 'UpdateItem', 'ConditionCheckItem'], maxBodyBytes: BULK_MAX_BODY_BYTES },
  { method: 'GET', path: '/api/contacts/email/{email}', handler: 'contacts/get-by-email', ...key, table: ['GetItem'] },
  { method: 'GET', path: '/api/contacts/{id}', handler: 'contacts/get', ...key, table: ['GetItem'] },
  { method: 'PATCH', path: '/api/contacts/{id}', handler: 'contacts/update', ...key, table: ['GetItem', 'UpdateItem'] },
  { method: 'DELETE', path: '/api/contacts/{id}', handler: 'contacts/delete', ...key, table: ['GetItem', 'DeleteItem', 'UpdateItem'] },
] as const satisfies readonly Route[];

/** Answers every request that matches no route: 404 NOT_FOUND, or 405 when only the method is wrong. */
export const FALLBACK_HANDLER = 'system/fallback';

export type HandlerName = (typeof ROUTES)[number]['handler'];

/** Every route of a handler; one handler may serve several paths (the OTP aliases). */
export function routesOf(handler: string): Route[] {
  return ROUTES.filter((route) => route.handler === handler);
}

export type RouteMatch =
  | { kind: 'route'; route: Route; params: Record<string, string> }
  | { kind: 'method-not-allowed'; allowed: HttpMethod[] }
  | { kind: 'not-found' };

function segments(path: string): string[] {
  return path.split('/').filter(Boolean);
}

/** Literal segments beat parameters, as in API Gateway: `/api/contacts/bulk` wins over `/api/contacts/{id}`. */
function matchPath(template: string, path: string): { params: Record<string, string>; literals: number } | undefined {
  const wanted = segments(template);
  const given = segments(path);
  if (wanted.length !== given.length) return undefined;
  const params: Record<string, string> = {};
  let literals = 0;
  for (const [index, part] of wanted.entries()) {
    const value = given[index]!;
    if (part.startsWith('{') && part.endsWith('}')) {
      try {
        params[part.slice(1, -1)] = decodeURIComponent(value);
      } catch {
        return undefined;
      }
    } else if (part === value) {
      literals++;
    } else {
      return undefined;
    }
  }
  return { params, literals };
}

export function matchRoute(method: string, path: string, routes: readonly Route[] = ROUTES): RouteMatch {
  let best: { route: Route; params: Record<string, string>; literals: number } | undefined;
  const allowed = new Set<HttpMethod>();
  for (const route of routes) {
    const match = matchPath(route.path, path);
    if (!match) continue;
    allowed.add(route.method);
    if (route.method !== method.toUpperCase()) continue;
    if (!best || match.literals > best.literals) best = { route, ...match };
  }
  if (best) return { kind: 'route', route: best.route, params: best.params };
  return allowed.size > 0 ? { kind: 'method-not-allowed', allowed: [...allowed] } : { kind: 'not-found' };
}

/** Every handler module, each once: one Lambda function apiece. */
export function handlerModules(): string[] {
  return [...new Set<string>([...ROUTES.map((route) => route.handler), FALLBACK_HANDLER])];
}
