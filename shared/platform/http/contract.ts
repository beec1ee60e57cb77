/**
 * An endpoint's contract: everything about it but its code, declared once
 * beside its handler (functions/<area>/contract.ts). The route table
 * (functions/routes.ts), the stack's grants, the OpenAPI document and the
 * test walkers all read it; the handler factory (endpoint.ts) takes it, so a
 * function's bundle carries its own area's contract and no other.
 */
import type * as v from 'valibot';
import type { ErrorCode } from '#shared/platform/errors.ts';
import { cursorListReply, dataReply, deletedReply, listReply } from '#shared/platform/schema/replies.ts';
import type { Route } from './routes.ts';

/** A success answered with an HTML page (the public pages a recipient's browser opens). */
export const HTML_PAGE = 'text/html';

/**
 * What a path parameter names, so the test walkers can build a valid call of
 * any route from one owned resource per kind: `{ id: 'contact' }`.
 * `contactEmail`: a contact's address (the lookup also takes its audience in
 * the query); `subscriptionToken`, `confirmationToken`: the signed links' tokens;
 * `delivery`: a delivery of the webhook the route's `id` names;
 * `suppressedEmail`: an address on the account's suppression list;
 * `audienceExport`: an export of the audience the route's `id` names.
 */
export type ResourceKind =
  | 'audience'
  | 'contact'
  | 'contactEmail'
  | 'template'
  | 'broadcast'
  | 'domain'
  | 'email'
  | 'form'
  | 'formSlug'
  | 'subscriptionToken'
  | 'confirmationToken'
  | 'webhook'
  | 'delivery'
  | 'member'
  | 'apiKey'
  | 'suppressedEmail'
  | 'audienceExport';

export interface RequestSchemas {
  body?: v.GenericSchema;
  query?: v.GenericSchema;
}

/** One endpoint as its area's contract declares it; `handler` is filled in by `defineArea`. */
export interface EndpointSpec extends Omit<Route, 'handler'> {
  /** Further paths served by the same handler (POST /api/otp beside /api/otp/send). */
  aliases?: readonly string[];
  request: RequestSchemas;
  /** The success replies by status. */
  responses: Partial<Record<200 | 201 | 202, v.GenericSchema | typeof HTML_PAGE>>;
  /** One line, the OpenAPI summary. */
  summary: string;
  /** One or two sentences for a client developer: the OpenAPI operation's description. */
  description: string;
  /**
   * Error codes of this endpoint beyond those every route of its kind can give
   * (dev/openapi/document.ts `derivedErrorCodes`): its not-found and conflict codes.
   */
  errors?: readonly ErrorCode[];
  /** Statuses at which a page (HTML) answers, instead of or beside JSON: the pages a browser posts to. */
  pageStatuses?: readonly number[];
  /** An example request body; the test walkers also use it as the valid body of a call. */
  example?: Record<string, unknown>;
  /** The kind of owned resource each path parameter names. */
  params?: Readonly<Record<string, ResourceKind>>;
}

/** An endpoint of the route table: its contract, with its handler module. */
export type Endpoint<S extends EndpointSpec = EndpointSpec> = S & { handler: string };

/** `getByEmail` → `get-by-email`: the module name under functions/<area>/. */
function moduleName(action: string): string {
  return action.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
}

/**
 * An area's contract: its endpoints by action, each handled by
 * functions/<area>/<action in kebab case>.ts.
 *
 * `export const contacts = defineArea('contacts', { getByEmail: { method: 'GET', path: '/api/contacts/email/{email}', … } })`
 */
export function defineArea<const T extends Record<string, EndpointSpec>>(area: string, endpoints: T): { readonly [K in keyof T]: Endpoint<T[K]> } {
  return Object.fromEntries(Object.entries(endpoints).map(([action, spec]) => [action, { ...spec, handler: `${area}/${moduleName(action)}` }])) as {
    readonly [K in keyof T]: Endpoint<T[K]>;
  };
}

/** Every route an area's endpoints make: one per path, aliases included. */
export function routesOfArea(area: Readonly<Record<string, Endpoint>>): Endpoint[] {
  return Object.values(area).flatMap((endpoint) => [endpoint, ...(endpoint.aliases ?? []).map((path) => ({ ...endpoint, path }))]);
}

/** Behind `x-api-key` (for `full` keys) or a session. */
export const KEYED = { auth: 'key', permission: 'full' } as const;

/** Like KEYED, but a session's member needs the `admin` role (domains, API keys). */
export const ADMINS = { auth: 'key', permission: 'full', role: 'admin' } as const;

/** A signed-in person's session only: no API key, whatever its permission. */
export const SIGNED_IN = { auth: 'session', permission: 'full' } as const;

/** The team: admins' sessions only (people are managed by people). */
export const ADMIN_SESSIONS = { auth: 'session', permission: 'full', role: 'admin' } as const;

/** Who may call the entries of a `resource`: KEYED unless it says otherwise. */
type Access = typeof KEYED | typeof ADMINS | typeof ADMIN_SESSIONS;

/** What a `resource` entry still states itself: AWS calls, error codes, summary, description, example. */
export type EntryDetails = Omit<EndpointSpec, 'method' | 'path' | 'auth' | 'permission' | 'params' | 'request' | 'responses'>;

/**
 * A cursor-paginated GET at `path`: `{success, <name>: [...], pagination: {nextCursor}}`.
 * Cursors are signed with the link-signing key (shared/platform/signing/cursors.ts), hence the secret.
 * For lists under one item, `resource(...).cursorList` adds the id and its not-found error.
 */
export function cursorList<const N extends string, Q extends v.GenericSchema, I extends v.GenericSchema, const D extends EntryDetails>({
  path,
  name,
  query,
  item,
  ...details
}: { path: string; name: N; query: Q; item: I } & D) {
  return {
    method: 'GET' as const,
    path,
    ...KEYED,
    secrets: ['linkSigning'] as const,
    ...details,
    request: { query },
    responses: { 200: cursorListReply(name, item) },
  };
}

/** A create's or update's request body, and its reply when it is not the resource's own schema. */
type BodyAndReply<B extends v.GenericSchema, R extends v.GenericSchema> = { body: B; reply?: R };

/**
 * The standard entries of a keyed resource (create, list, get, update,
 * delete, and reads, lists or actions under one item), so an area states only what
 * differs: schemas, AWS calls, errors and words. Entries keep the shape of a
 * hand-written one; anything else is written out in full.
 *
 * `schema` is the resource as the API shows it: what create, get and update
 * answer unless an entry names another `reply` (a read under the item, a
 * create that shows a secret once). `writeErrors` are what every create,
 * update and delete can answer besides its own: 409 `CONFLICT` where the
 * write is a transaction with a counter, retried against concurrent ones
 * before it gives up (shared/platform/dynamodb/client.ts `transactWrite`).
 *
 * `access` is who may call them: KEYED, ADMINS (a member's session gets
 * 403) or ADMIN_SESSIONS (the team: no API key at all).
 *
 * `const audience = resource('/api/audiences', 'audience', 'AUDIENCE_NOT_FOUND', { schema: audienceSchema })`, then
 * `get: audience.get({ table: ['GetItem'], summary, description })`.
 * Entries on one item (all but create and a plain list) list `notFound`
 * before their own `errors`; creates, updates and deletes list `writeErrors` after them.
 */
export function resource<const K extends ResourceKind, S extends v.GenericSchema, const A extends Access = typeof KEYED>(
  basePath: string,
  idKind: K,
  notFound: ErrorCode,
  { schema, writeErrors = [], access = KEYED as A }: { schema: S; writeErrors?: readonly ErrorCode[]; access?: A },
) {
  const params = { id: idKind };
  // Every entry that names an item can meet an unknown (or another account's) id.
  const onItem = <const D extends EntryDetails>({ errors = [], ...details }: D) => ({ ...details, errors: [notFound, ...errors] });
  const writing = <const D extends EntryDetails>({ errors = [], ...details }: D) => ({ ...details, errors: [...errors, ...writeErrors] });
  const itemPath = (sub?: string) => (sub ? `${basePath}/{id}/${sub}` : `${basePath}/{id}`);
  // R is S whenever `reply` is left out (its default), so the cast only names that.
  const replyOr = <R extends v.GenericSchema>(reply: R | undefined) => (reply ?? schema) as R;
  return {
    /** POST basePath: 201 `{success, data}`. */
    create: <B extends v.GenericSchema, const D extends EntryDetails, R extends v.GenericSchema = S>({ body, reply, ...details }: BodyAndReply<B, R> & D) => ({
      method: 'POST' as const,
      path: basePath,
      ...access,
      ...writing(details),
      request: { body },
      responses: { 201: dataReply(replyOr(reply)) },
    }),
    /**
     * GET basePath, or a list under one item (`sub: 'submissions'` is
     * basePath/{id}/submissions): one page, `{success, <name>: [...], pagination}`.
     */
    list: <const N extends string, Q extends v.GenericSchema, I extends v.GenericSchema, const D extends EntryDetails>({
      name,
      query,
      item,
      sub,
      ...details
    }: { name: N; query: Q; item: I; sub?: string } & D) => ({
      method: 'GET' as const,
      path: sub === undefined ? basePath : itemPath(sub),
      ...access,
      ...(sub === undefined ? details : { ...onItem(details), params }),
      request: { query },
      responses: { 200: listReply(name, item) },
    }),
    /** Like `list`, but cursor-paginated (`cursorList`): GET basePath, or under one item with `sub`. */
    cursorList: <const N extends string, Q extends v.GenericSchema, I extends v.GenericSchema, const D extends EntryDetails>({
      sub,
      ...spec
    }: { name: N; query: Q; item: I; sub?: string } & D) =>
      sub === undefined
        ? { ...cursorList({ path: basePath, ...spec }), ...access }
        : { ...cursorList({ path: itemPath(sub), ...onItem(spec) }), ...access, params },
    /** GET basePath/{id}, or a read under it (`sub: 'stats'` is basePath/{id}/stats, with its own `reply`): `{success, data}`. */
    get: <const D extends EntryDetails, R extends v.GenericSchema = S>({ reply, sub, ...details }: { reply?: R; sub?: string } & D) => ({
      method: 'GET' as const,
      path: itemPath(sub),
      ...access,
      ...onItem(details),
      params,
      request: {},
      responses: { 200: dataReply(replyOr(reply)) },
    }),
    /** PATCH basePath/{id}: the changed resource, `{success, data}`. */
    update: <B extends v.GenericSchema, const D extends EntryDetails, R extends v.GenericSchema = S>({ body, reply, ...details }: BodyAndReply<B, R> & D) => ({
      method: 'PATCH' as const,
      path: itemPath(),
      ...access,
      ...onItem(writing(details)),
      params,
      request: { body },
      responses: { 200: dataReply(replyOr(reply)) },
    }),
    /** DELETE basePath/{id}: `{success, message}`. */
    delete: <const D extends EntryDetails>(details: D) => ({
      method: 'DELETE' as const,
      path: itemPath(),
      ...access,
      ...onItem(writing(details)),
      params,
      request: {},
      responses: { 200: deletedReply },
    }),
    /** POST basePath/{id}/<sub>: an action on one item, answered with `reply` as it stands. */
    action: <B extends v.GenericSchema, R extends v.GenericSchema, const D extends EntryDetails>({
      sub,
      body,
      reply,
      ...details
    }: { sub: string; body: B; reply: R } & D) => ({
      method: 'POST' as const,
      path: itemPath(sub),
      ...access,
      ...onItem(details),
      params,
      request: { body },
      responses: { 200: reply },
    }),
  };
}

/** The recipient's unsubscribe, preference and confirmation pages: the signed link in the path is the only credential. */
export const SIGNED_LINK = { auth: 'public', permission: 'full', secrets: ['linkSigning'], throttle: 'public' } as const;

/**
 * The two entries of a signed link's address (`/unsubscribe/{token}`): GET
 * shows a page and changes nothing, since mail scanners open links; POST,
 * the page's button, acts. Both answer HTML; the token names `tokenKind`.
 *
 * `const link = signedLink('/unsubscribe/{token}', 'subscriptionToken')`, then
 * `unsubscribePage: link.page({ table: [], pageStatuses: [400], summary, description })`
 * and `unsubscribe: link.post({ request: {}, table: [...], pageStatuses: [400], summary, description })`.
 */
export function signedLink<const K extends ResourceKind>(path: string, tokenKind: K) {
  const shared = { path, ...SIGNED_LINK, params: { token: tokenKind }, responses: { 200: HTML_PAGE } } as const;
  return {
    page: <const D extends EntryDetails>(details: D) => ({ method: 'GET' as const, ...shared, ...details, request: {} }),
    post: <R extends RequestSchemas, const D extends EntryDetails>({ request, ...details }: { request: R } & D) => ({
      method: 'POST' as const,
      ...shared,
      ...details,
      request,
    }),
  };
}

/** Open to anyone (public forms, the API description); the stage's tighter throttle where `throttle` says so. */
export const PUBLIC = { auth: 'public', permission: 'full' } as const;

/** The send endpoints' own errors; the idempotent ones add the key's. */
export const SEND_ERRORS = [
  'SENDER_NOT_VERIFIED',
  'QUOTA_EXCEEDED',
  'TEMPLATE_NOT_FOUND',
  'RECIPIENT_SUPPRESSED',
  'MESSAGE_REJECTED',
  'SES_THROTTLED',
  'SENDING_PAUSED',
  'IDEMPOTENCY_KEY_REUSED',
  'IDEMPOTENCY_IN_PROGRESS',
] as const;

/**
 * The send endpoints: `sending` keys may call them; they sign each
 * recipient's unsubscribe links. Table actions: quota, idempotency claims
 * (put, complete, release: PutItem, UpdateItem, DeleteItem), the OTP window,
 * the suppression lookups with the sender's domain and the template
 * (BatchGetItem), the email records with their events (BatchWriteItem);
 * each message's content in the attachments bucket (`storeContent`).
 */
export const SENDING = {
  auth: 'key',
  permission: 'sending',
  ses: ['SendEmail'],
  secrets: ['linkSigning'],
  queues: ['retry'],
  attachments: ['queue', 'storeContent'],
  table: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'],
  errors: SEND_ERRORS,
} as const;

/**
 * A send endpoint: POST `path` with `body`, answered 200 with `reply` (its
 * send result), under SENDING's grants and errors unless `details` states its own.
 *
 * `send: sendEndpoint({ path: '/api/transactional/send', body: transactionalSendBody, reply: singleSendResultReply, summary, description, example })`
 */
export function sendEndpoint<B extends v.GenericSchema, R extends v.GenericSchema, const D extends Partial<EntryDetails>>({
  path,
  body,
  reply,
  ...details
}: { path: string; body: B; reply: R } & D) {
  return { method: 'POST' as const, path, ...SENDING, ...details, request: { body }, responses: { 200: reply } };
}
