/**
 * What a route is, and how API Gateway picks one. The routes themselves are
 * declared by each area's contract (functions/<area>/contract.ts) and listed
 * in functions/routes.ts; everything here takes them as a parameter, since
 * shared/ never imports functions/.
 */

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** What API Gateway routes beyond the table's methods: a HEAD twin of every GET, and CORS preflights. */
export type EdgeMethod = HttpMethod | 'HEAD' | 'OPTIONS';

/**
 * DynamoDB actions a handler calls (transactions need the actions they contain).
 * The stack grants exactly these, plus what authentication and rate limiting
 * need on keyed routes (KEYED_ROUTE_TABLE_ACTIONS), and nothing else.
 */
export type TableAction = 'GetItem' | 'BatchGetItem' | 'Query' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'ConditionCheckItem' | 'BatchWriteItem';

export type SesAction = 'SendEmail' | 'CreateEmailIdentity' | 'GetEmailIdentity' | 'DeleteEmailIdentity';

/**
 * Secrets a handler reads at run time; the stack grants reading exactly these
 * and names them in the function's environment. `linkSigning`: the key of the
 * signed unsubscribe and preference links (SIGNING_SECRET_PARAMETER).
 */
export type SecretName = 'linkSigning';

/**
 * What a handler does with the attachments bucket: `upload` signs PUT URLs
 * (s3:PutObject), `read` reads uploads (s3:GetObject, and s3:ListBucket so a
 * missing object is a 404 rather than S3's 403); `queue` stores a throttled
 * message too large for the retry queue under `queued/` (s3:PutObject there),
 * and `dequeue`, the retry worker's, reads it back (s3:GetObject there, and
 * s3:ListBucket for the same 404). `export` writes an audience's CSV under
 * `exports/` and signs a GET of it (s3:PutObject and s3:GetObject there, and
 * s3:ListBucket for the same 404); `writeExport`, the export worker's, only
 * writes there, and `signExport` only signs a GET there (with s3:ListBucket). `storeContent`, every sender's, keeps each
 * message's content under `content/` (s3:PutObject there), and `readContent`
 * reads it back (s3:GetObject there, and s3:ListBucket for the same 404).
 * The stack grants exactly that.
 */
export type AttachmentsAccess = 'upload' | 'read' | 'queue' | 'dequeue' | 'export' | 'writeExport' | 'signExport' | 'storeContent' | 'readContent';

/**
 * Queues a handler puts messages on; the stack grants sqs:SendMessage on
 * exactly these and names each in the function's environment. `retry`: the
 * throttling retry queue (RETRY_QUEUE_URL), for every handler that sends mail;
 * `webhooks` and `webhooksSlow`: the webhook delivery queue's two lanes
 * (WEBHOOK_QUEUE_URL, WEBHOOK_SLOW_QUEUE_URL: shared/webhooks/queue.ts), both
 * for handlers that queue a delivery themselves (a test event, a manual retry),
 * which go on the lane of their endpoint.
 * `broadcast`: the broadcast engine's steps (BROADCAST_QUEUE_URL).
 * `export`: audience exports too large for their request (EXPORT_QUEUE_URL).
 */
/** EventBridge Scheduler's actions on a broadcast's schedule. */
export type ScheduleAction = 'CreateSchedule' | 'UpdateSchedule' | 'DeleteSchedule';

export type QueueName = 'retry' | 'webhooks' | 'webhooksSlow' | 'broadcast' | 'export';

/**
 * The key check, rate-limit windows and last-used stamp in one conditional
 * write of the key item (UpdateItem); with home regions, the plain read of
 * the account's home that routes it (GetItem, shared/platform/dynamodb/client.ts).
 * A session's check uses the same two: its use (UpdateItem), its member and
 * account (GetItem) and its rate window (UpdateItem).
 */
export const KEYED_ROUTE_TABLE_ACTIONS: readonly TableAction[] = ['GetItem', 'UpdateItem'];

/** Routes with a caller to check and count (a key or a session): every one but the public ones. */
export function isAuthenticated(route: Pick<Route, 'auth'>): boolean {
  return route.auth !== 'public';
}

export interface Route {
  method: HttpMethod;
  /** API Gateway path syntax: `/api/contacts/{id}`. */
  path: string;
  /** Module under functions/ exporting `handler`. */
  handler: string;
  /**
   * `key`: an API key (`x-api-key`) or a signed-in person's session cookie,
   * the key deciding when both come; `session`: the session cookie only, any
   * API key refused with 403 (people are managed by people: the team, the
   * session itself); `public`: open (public forms, unsubscribe and preference
   * pages, signing in).
   */
  auth: 'key' | 'session' | 'public';
  /** The least key permission that may call it: `sending` keys reach only the send endpoints. */
  permission: 'full' | 'sending';
  /**
   * The least role a session's member needs: `admin` keeps members (role
   * `member`) out with 403 FORBIDDEN (the team, API keys, domains). API keys
   * are judged by `permission` alone.
   */
  role?: 'admin';
  table: readonly TableAction[];
  /** SES v2 actions the handler calls; the stack grants exactly these. */
  ses?: readonly SesAction[];
  secrets?: readonly SecretName[];
  attachments?: readonly AttachmentsAccess[];
  queues?: readonly QueueName[];
  /**
   * What the route does to broadcasts' one-time schedules (EventBridge
   * Scheduler): the stack grants those actions on the broadcast schedules,
   * passing the scheduler's role to those that create or move one, and names
   * the queue and role in the environment.
   */
  scheduler?: readonly ScheduleAction[];
  /** Largest accepted request body in bytes; larger ones get 413. */
  maxBodyBytes?: number;
  /** Accepted body formats; JSON only unless the route also takes HTML form posts. */
  bodyFormats?: readonly ('json' | 'form')[];
  /**
   * `public`: the stage's tighter per-route throttle for anonymous routes
   * (context `postlane:publicThrottleRate`/`Burst`); otherwise the stage default.
   */
  throttle?: 'public';
  /**
   * Browsers on other origins may call it (CORS_ALLOWED_ORIGINS, default any):
   * its path gets an OPTIONS preflight route and its answers the CORS headers.
   * Never on keyed routes: a page must not be able to spend a visitor's key.
   */
  cors?: boolean;
}

export const DEFAULT_MAX_BODY_BYTES = 256 * 1024;

/** Answers every request that matches no route: 404 NOT_FOUND, or 405 when only the method is wrong. */
export const FALLBACK_HANDLER = 'system/fallback';

/** Every route of a handler; one handler may serve several paths (the OTP aliases). */
export function routesOf<R extends Route>(handler: string, routes: readonly R[]): R[] {
  return routes.filter((route) => route.handler === handler);
}

export type RouteMatch<R extends { method: string; path: string } = Route> =
  | { kind: 'route'; route: R; params: Record<string, string> }
  | { kind: 'method-not-allowed'; allowed: string[] }
  | { kind: 'not-found' };

function segments(path: string): string[] {
  return path.split('/').filter(Boolean);
}

/** A template's segments, split once: every request is matched against every route (the local server's and the fallback's). */
const templateSegments = new Map<string, string[]>();

function segmentsOfTemplate(template: string): string[] {
  let split = templateSegments.get(template);
  if (!split) {
    split = segments(template);
    templateSegments.set(template, split);
  }
  return split;
}

/** Literal segments beat parameters, as in API Gateway: `/api/contacts/bulk` wins over `/api/contacts/{id}`. */
function matchPath(template: string, given: readonly string[]): { params: Record<string, string>; literals: number } | undefined {
  const wanted = segmentsOfTemplate(template);
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

/** The route of `routes` (the table's, or `edgeRoutes(...)`) that API Gateway would pick for this request. */
export function matchRoute<R extends { method: string; path: string } = Route>(method: string, path: string, routes: readonly R[]): RouteMatch<R> {
  let best: { route: R; params: Record<string, string>; literals: number } | undefined;
  const allowed = new Set<string>();
  const given = segments(path);
  for (const route of routes) {
    const match = matchPath(route.path, given);
    if (!match) continue;
    allowed.add(route.method);
    if (route.method !== method.toUpperCase()) continue;
    if (!best || match.literals > best.literals) best = { route, ...match };
  }
  if (best) return { kind: 'route', route: best.route, params: best.params };
  return allowed.size > 0 ? { kind: 'method-not-allowed', allowed: [...allowed] } : { kind: 'not-found' };
}

/** Answers the CORS preflights of the `cors` routes' paths. */
export const PREFLIGHT_HANDLER = 'system/preflight';

/** One route as API Gateway has it: `route` is the table's entry it serves (for OPTIONS, the path's first `cors` route). */
export interface EdgeRoute {
  method: EdgeMethod;
  path: string;
  handler: string;
  route: Route;
}

/**
 * Every route API Gateway gets, and the local server matches against: the
 * table's, a HEAD twin of each GET on the same handler (HTTP API routes are
 * per method, and HEAD must work wherever GET does), and an OPTIONS preflight
 * per path with `cors` routes. The one declaration both derive from.
 */
export function edgeRoutes(routes: readonly Route[]): readonly EdgeRoute[] {
  let edge = edgeRoutesOf.get(routes);
  if (!edge) {
    edge = edgeRoutesFrom(routes);
    edgeRoutesOf.set(routes, edge);
  }
  return edge;
}

/** Each route table's edge routes, derived once: every request is matched against them. */
const edgeRoutesOf = new WeakMap<readonly Route[], readonly EdgeRoute[]>();

function edgeRoutesFrom(routes: readonly Route[]): EdgeRoute[] {
  const edge: EdgeRoute[] = [];
  const preflights = new Map<string, Route>();
  for (const route of routes) {
    edge.push({ method: route.method, path: route.path, handler: route.handler, route });
    if (route.method === 'GET') edge.push({ method: 'HEAD', path: route.path, handler: route.handler, route });
    if (route.cors && !preflights.has(route.path)) preflights.set(route.path, route);
  }
  for (const [path, route] of preflights) edge.push({ method: 'OPTIONS', path, handler: PREFLIGHT_HANDLER, route });
  return edge;
}

/** The methods a browser may use on a `cors` path: what the preflight of that path allows. */
export function corsMethodsOf(path: string, routes: readonly Route[]): EdgeMethod[] {
  return edgeRoutes(routes.filter((route) => route.cors && route.path === path))
    .filter((route) => route.method !== 'OPTIONS')
    .map((route) => route.method);
}

/** Every handler module, each once: one Lambda function apiece. */
export function handlerModules(routes: readonly Route[]): string[] {
  return [...new Set<string>([...routes.map((route) => route.handler), FALLBACK_HANDLER, PREFLIGHT_HANDLER])];
}
