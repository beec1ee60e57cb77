/**
 * The only list of routes. The CDK stack makes one function and one API route
 * per entry, the local server dispatches by it, and the tests walk it.
 * Adding an endpoint is one line here plus its handler in functions/<handler>.ts.
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

export type SesAction = 'SendEmail' | 'CreateEmailIdentity' | 'GetEmailIdentity';

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
 * s3:ListBucket for the same 404). The stack grants exactly that.
 */
export type AttachmentsAccess = 'upload' | 'read' | 'queue' | 'dequeue';

/**
 * Queues a handler puts messages on; the stack grants sqs:SendMessage on
 * exactly these and names each in the function's environment. `retry`: the
 * throttling retry queue (RETRY_QUEUE_URL), for every handler that sends mail.
 */
export type QueueName = 'retry';

/** Key lookup (BatchGetItem), rate-limit window and last-used stamp (UpdateItem). */
export const KEYED_ROUTE_TABLE_ACTIONS: readonly TableAction[] = ['BatchGetItem', 'UpdateItem'];

export interface Route {
  method: HttpMethod;
  /** API Gateway path syntax: `/api/contacts/{id}`. */
  path: string;
  /** Module under functions/ exporting `handler`. */
  handler: string;
  /** `key`: needs `x-api-key`; `public`: open (public forms, unsubscribe and preference pages). */
  auth: 'key' | 'public';
  /** The least key permission that may call it: `sending` keys reach only the send endpoints. */
  permission: 'full' | 'sending';
  table: readonly TableAction[];
  /** SES v2 actions the handler calls; the stack grants exactly these. */
  ses?: readonly SesAction[];
  secrets?: readonly SecretName[];
  attachments?: readonly AttachmentsAccess[];
  queues?: readonly QueueName[];
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

const key = { auth: 'key', permission: 'full' } as const;
/** The recipient's unsubscribe and preference pages: the signed link in the path is the only credential. */
const signedLink = { auth: 'public', permission: 'full', secrets: ['linkSigning'], throttle: 'public' } as const;

export const DEFAULT_MAX_BODY_BYTES = 256 * 1024;
/** 1,000 contacts with custom fields; Lambda refuses synchronous payloads over 6 MB. */
const BULK_MAX_BODY_BYTES = 5 * 1024 * 1024;
/**
 * Lambda takes at most 6 MB per synchronous invocation, the API Gateway event
 * around the body included; the body counts as the event carries it
 * (JSON-escaped: shared/http/middleware.ts), and 256 KB is left for the rest
 * of the event. Base64 (which JSON leaves unescaped) makes
 * this about 4.3 MB of attachments per request, below the spec's 7 MB each:
 * larger files go through POST /api/attachments (a pre-signed S3 upload).
 */
export const EMAIL_SEND_MAX_BODY_BYTES = 6 * 1024 * 1024 - 256 * 1024;
/** The send endpoints: `sending` keys may call them; they sign each recipient's unsubscribe links. */
const send = { auth: 'key', permission: 'sending', ses: ['SendEmail'], secrets: ['linkSigning'], queues: ['retry'], attachments: ['queue'] } as const;
/**
 * Quota, idempotency claims (put, complete, release: PutItem, UpdateItem,
 * DeleteItem), the OTP window, the suppression lookups, the email records.
 */
const SINGLE_SEND_TABLE_ACTIONS = ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'] as const;

/** Public form endpoints: anyone may call them; only published forms answer. */
const publicForm = { auth: 'public', permission: 'full', throttle: 'public' } as const;
/**
 * A submission is stored as one item (DynamoDB's limit is 400 KB): this
 * leaves room for the item's own attributes around the submitted values.
 */
export const FORM_SUBMIT_MAX_BODY_BYTES = 300 * 1024;
/**
 * The form and its route, the rate windows, the submission and counters, the
 * contact of a linked audience (create, or read when it exists), the hourly
 * confirmation claim, the default sender (the account's domains: Query and
 * BatchGetItem), and the sending path for the notification and confirmation
 * emails (quota, suppression, records).
 */
const FORM_SUBMIT_TABLE_ACTIONS = ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'ConditionCheckItem', 'BatchWriteItem'] as const;

export const ROUTES = [
  { method: 'POST', path: '/api/audiences', handler: 'audiences/create', ...key, table: ['PutItem', 'UpdateItem'] },
  { method: 'GET', path: '/api/audiences', handler: 'audiences/list', ...key, table: ['Query', 'BatchGetItem', 'GetItem'] },
  { method: 'GET', path: '/api/audiences/{id}', handler: 'audiences/get', ...key, table: ['BatchGetItem'] },
  { method: 'GET', path: '/api/audiences/{id}/stats', handler: 'audiences/stats', ...key, table: ['GetItem'] },
  { method: 'PATCH', path: '/api/audiences/{id}', handler: 'audiences/update', ...key, table: ['GetItem', 'UpdateItem'] },
  { method: 'DELETE', path: '/api/audiences/{id}', handler: 'audiences/delete', ...key, table: ['DeleteItem', 'UpdateItem'] },

  { method: 'POST', path: '/api/contacts', handler: 'contacts/create', ...key, table: ['PutItem', 'UpdateItem', 'ConditionCheckItem'] },
  { method: 'GET', path: '/api/contacts', handler: 'contacts/list', ...key, table: ['Query', 'GetItem'] },
  { method: 'POST', path: '/api/contacts/bulk', handler: 'contacts/bulk-import', ...key, table: ['BatchGetItem', 'PutItem', 'UpdateItem', 'ConditionCheckItem'], maxBodyBytes: BULK_MAX_BODY_BYTES },
  { method: 'GET', path: '/api/contacts/email/{email}', handler: 'contacts/get-by-email', ...key, table: ['GetItem'] },
  { method: 'GET', path: '/api/contacts/{id}', handler: 'contacts/get', ...key, table: ['GetItem'] },
  { method: 'PATCH', path: '/api/contacts/{id}', handler: 'contacts/update', ...key, table: ['GetItem', 'PutItem', 'UpdateItem'] },
  { method: 'DELETE', path: '/api/contacts/{id}', handler: 'contacts/delete', ...key, table: ['GetItem', 'DeleteItem', 'UpdateItem'] },

  { method: 'POST', path: '/api/templates', handler: 'templates/create', ...key, table: ['PutItem', 'UpdateItem'] },
  { method: 'GET', path: '/api/templates', handler: 'templates/list', ...key, table: ['Query', 'GetItem'] },
  { method: 'GET', path: '/api/templates/{id}', handler: 'templates/get', ...key, table: ['GetItem'] },
  { method: 'PATCH', path: '/api/templates/{id}', handler: 'templates/update', ...key, table: ['UpdateItem', 'GetItem'] },
  { method: 'DELETE', path: '/api/templates/{id}', handler: 'templates/delete', ...key, table: ['DeleteItem', 'UpdateItem'] },
  { method: 'POST', path: '/api/templates/{id}/render', handler: 'templates/render', ...key, table: ['GetItem'] },

  { method: 'POST', path: '/api/domains', handler: 'domains/create', ...key, table: ['GetItem', 'PutItem'], ses: ['CreateEmailIdentity', 'GetEmailIdentity'] },
  { method: 'GET', path: '/api/domains', handler: 'domains/list', ...key, table: ['Query', 'BatchGetItem'] },
  { method: 'GET', path: '/api/domains/{id}', handler: 'domains/get', ...key, table: ['GetItem', 'UpdateItem'], ses: ['GetEmailIdentity'] },

  { method: 'GET', path: '/unsubscribe/{token}', handler: 'subscriptions/unsubscribe-page', ...signedLink, table: [] },
  { method: 'POST', path: '/unsubscribe/{token}', handler: 'subscriptions/unsubscribe', ...signedLink, table: ['Query', 'GetItem', 'PutItem', 'UpdateItem'] },
  { method: 'GET', path: '/preferences/{token}', handler: 'subscriptions/preferences-page', ...signedLink, table: ['Query', 'BatchGetItem', 'GetItem'] },
  { method: 'POST', path: '/preferences/{token}', handler: 'subscriptions/update-preferences', ...signedLink, table: ['Query', 'BatchGetItem', 'GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'], bodyFormats: ['json', 'form'] },

  { method: 'POST', path: '/api/email/send', handler: 'email/send', ...send, table: SINGLE_SEND_TABLE_ACTIONS, attachments: ['read', 'queue'], maxBodyBytes: EMAIL_SEND_MAX_BODY_BYTES },
  // Uploading is part of sending: `sending` keys may, as they may attach files inline.
  { method: 'POST', path: '/api/attachments', handler: 'attachments/create', auth: 'key', permission: 'sending', table: ['PutItem'], attachments: ['upload'] },
  { method: 'POST', path: '/api/otp/send', handler: 'otp/send', ...send, table: SINGLE_SEND_TABLE_ACTIONS },
  { method: 'POST', path: '/api/otp', handler: 'otp/send', ...send, table: SINGLE_SEND_TABLE_ACTIONS },
  { method: 'POST', path: '/api/transactional/send', handler: 'transactional/send', ...send, table: SINGLE_SEND_TABLE_ACTIONS },
  // Reading records is not sending: `sending` keys reach the send endpoints only (docs/api.md, "Authentication").
  { method: 'GET', path: '/api/emails/{id}', handler: 'emails/get', ...key, table: ['GetItem'] },
  // Query: the account's domains, when a form that sends mail has no `from` (the default sender).
  { method: 'POST', path: '/api/forms', handler: 'forms/create', ...key, table: ['BatchGetItem', 'GetItem', 'Query', 'PutItem', 'UpdateItem'] },
  { method: 'GET', path: '/api/forms', handler: 'forms/list', ...key, table: ['Query', 'GetItem'] },
  { method: 'GET', path: '/api/forms/public/{slug}', handler: 'forms/get-public', ...publicForm, cors: true, table: ['GetItem', 'UpdateItem'] },
  { method: 'GET', path: '/api/forms/{id}', handler: 'forms/get', ...key, table: ['GetItem'] },
  { method: 'PATCH', path: '/api/forms/{id}', handler: 'forms/update', ...key, table: ['BatchGetItem', 'GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'] },
  { method: 'DELETE', path: '/api/forms/{id}', handler: 'forms/delete', ...key, table: ['GetItem', 'DeleteItem', 'UpdateItem', 'Query', 'BatchWriteItem'] },
  { method: 'GET', path: '/api/forms/{id}/submissions', handler: 'forms/submissions', ...key, table: ['GetItem', 'Query'] },
  { method: 'POST', path: '/api/forms/{id}/submit', handler: 'forms/submit', ...publicForm, cors: true, table: FORM_SUBMIT_TABLE_ACTIONS, ses: ['SendEmail'], secrets: ['linkSigning'], queues: ['retry'], attachments: ['queue'], maxBodyBytes: FORM_SUBMIT_MAX_BODY_BYTES, bodyFormats: ['json', 'form'] },
  { method: 'GET', path: '/f/{slug}', handler: 'forms/page', ...publicForm, table: ['GetItem', 'UpdateItem'] },
  // The double opt-in link: its GET only shows a button (mail scanners open links), whose POST confirms.
  { method: 'GET', path: '/confirm/{token}', handler: 'forms/confirm-page', ...signedLink, table: [] },
  { method: 'POST', path: '/confirm/{token}', handler: 'forms/confirm', ...signedLink, table: ['Query', 'GetItem', 'PutItem', 'UpdateItem'] },

  // The API description (docs/openapi.json, `npm run openapi`) and its reference page.
  { method: 'GET', path: '/openapi.json', handler: 'system/openapi', auth: 'public', permission: 'full', table: [] },
  { method: 'GET', path: '/docs', handler: 'system/docs', auth: 'public', permission: 'full', table: [] },
] as const satisfies readonly Route[];

/** Answers every request that matches no route: 404 NOT_FOUND, or 405 when only the method is wrong. */
export const FALLBACK_HANDLER = 'system/fallback';

export type HandlerName = (typeof ROUTES)[number]['handler'];

/** Every route of a handler; one handler may serve several paths (the OTP aliases). */
export function routesOf(handler: string): Route[] {
  return ROUTES.filter((route) => route.handler === handler);
}

export type RouteMatch<R extends { method: string; path: string } = Route> =
  | { kind: 'route'; route: R; params: Record<string, string> }
  | { kind: 'method-not-allowed'; allowed: string[] }
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

/** The route of `routes` (the table's by default, or `edgeRoutes()`) that API Gateway would pick for this request. */
export function matchRoute<R extends { method: string; path: string } = Route>(method: string, path: string, routes: readonly R[] = ROUTES as unknown as readonly R[]): RouteMatch<R> {
  let best: { route: R; params: Record<string, string>; literals: number } | undefined;
  const allowed = new Set<string>();
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
export function edgeRoutes(routes: readonly Route[] = ROUTES): EdgeRoute[] {
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
export function corsMethodsOf(path: string, routes: readonly Route[] = ROUTES): EdgeMethod[] {
  return edgeRoutes(routes.filter((route) => route.cors && route.path === path)).filter((route) => route.method !== 'OPTIONS').map((route) => route.method);
}

/** Every handler module, each once: one Lambda function apiece. */
export function handlerModules(): string[] {
  return [...new Set<string>([...ROUTES.map((route) => route.handler), FALLBACK_HANDLER, PREFLIGHT_HANDLER])];
}
