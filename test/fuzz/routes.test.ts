/**
 * Property-based fuzzing of every route in the route table, over real HTTP
 * against DynamoDB Local. Inputs come from each endpoint's contract (its
 * request schemas, example body and path parameter kinds) bent into hostile values. For every answer:
 * - never a 5xx, never a hang;
 * - an input its schema rejects gets a 4xx;
 * - every 4xx is an error envelope (JSON, or an HTML page on the browser routes);
 * - a rejected request stores nothing.
 *
 * Keyed routes are called with the owner's key or its signed-in admin's
 * session cookie, half the cases each; the team and the session with the cookie.
 *
 * Seeded per route, so a failure reproduces; FUZZ_SEED=n and FUZZ_RUNS=n
 * change the seed and the number of runs.
 *
 * Beside the random cases, every route with a body gets each hostile shape of
 * the decisions ("Trust at the edges", bodies) at every place its schema
 * expects an object, judged by the decisions rather than by the schema: a
 * non-object there is 422 naming the field, a reserved key in a free map 422
 * naming the key, bytes that are not UTF-8 400 INVALID_JSON, a Content-Encoding
 * 415, deep nesting with an idempotency key a 4xx.
 */
import { brotliCompressSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { matchRoute } from '#shared/platform/http/routes.ts';
import { publicBase } from '#shared/platform/public-urls.ts';
import { HTML_PAGE, type Endpoint, type RequestSchemas } from '#shared/platform/http/contract.ts';
import { ROUTES } from '#functions/routes.ts';
import { session } from '#functions/session/contract.ts';
import { request, type ApiResponse } from '../support/api.ts';
import { fixtureOf, hasPathParameter, Owner, pathOf, referenceCall, referenceFieldsOf, routeKey, type RouteCall } from '../isolation/resources.ts';
import {
  bent,
  deepJson,
  fieldName,
  hostileInput,
  hostileParam,
  hostileQuery,
  hostileRawBody,
  NOT_OBJECTS,
  objectFields,
  pathsOf,
  reservedKeyed,
  shapedBy,
  urlEncoded,
  withValueAt,
} from './arbitraries.ts';
import { isBookkeeping, recordWrites, type WriteRecorder } from './stored-writes.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 25);
/** API Gateway's HTTP API gives up on an integration after 30 s: an answer slower than that has hung. */
const HANG_MS = 29_000;

/** A stable seed per route: the same inputs every run unless FUZZ_SEED says otherwise. */
function seedOf(route: Endpoint): number {
  let hash = Number(process.env.FUZZ_SEED ?? 7);
  for (const char of routeKey(route)) hash = (Math.imul(hash, 31) + char.charCodeAt(0)) | 0;
  return hash;
}

/** How the case's request proves its caller: the owner's key, or its signed-in admin's session cookie. */
type Credential = 'key' | 'session';

interface FuzzCase {
  /** Absent on public routes. */
  credential?: Credential;
  params: Record<string, string>;
  /** Raw query string. */
  query?: string;
  /** Raw body, sent as JSON. */
  body?: string;
}

/** API Gateway's view of a query string: decoded, repeated names joined with commas. */
function queryParameters(query: string): Record<string, string> {
  const joined: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(query)) joined[name] = name in joined ? `${joined[name]},${value}` : value;
  return joined;
}

function parsedJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** Whether the endpoint's schemas accept the case's body and query, as the handler would parse them. */
function schemasAccept(schemas: RequestSchemas, fuzz: FuzzCase): boolean {
  if (schemas.query && !v.safeParse(schemas.query, queryParameters(fuzz.query ?? '')).success) return false;
  if (!schemas.body) return true;
  const body = parsedJson(fuzz.body ?? '');
  return body.ok && body.value !== null && typeof body.value === 'object' && !Array.isArray(body.value) && v.safeParse(schemas.body, body.value).success;
}

function serialised(value: unknown): string {
  return JSON.stringify(value) ?? '';
}

/** Cases for one route: hostile path parameters, query strings and bodies, around a valid call of it. */
function casesFor(route: Endpoint, schemas: RequestSchemas, valid: RouteCall): fc.Arbitrary<FuzzCase> {
  const names = [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
  const hostileParams = fc.tuple(...names.map(() => hostileParam)).map((values) => Object.fromEntries(names.map((name, index) => [name, values[index]!])));
  const inputIsFuzzed = Boolean(schemas.body || schemas.query);
  // With a body or query to bend, the owned resource's ids get past the lookup to the validation; else the ids are what is fuzzed.
  const params =
    names.length === 0
      ? fc.constant({})
      : inputIsFuzzed
        ? fc.oneof({ weight: 3, arbitrary: fc.constant(valid.params) }, { weight: 1, arbitrary: hostileParams })
        : hostileParams;
  const query = schemas.query
    ? fc.oneof({ weight: 3, arbitrary: hostileQuery(schemas.query) }, { weight: 1, arbitrary: fc.constant(valid.query ?? '') })
    : fc.constant(valid.query);
  const body = schemas.body
    ? fc.oneof(
        { weight: 3, arbitrary: hostileInput(schemas.body).map(serialised) },
        { weight: 2, arbitrary: (valid.body === undefined ? shapedBy(schemas.body) : bent(valid.body)).map(serialised) },
        { weight: 1, arbitrary: hostileRawBody },
      )
    : fc.constant(undefined);
  // Keyed routes take a key or a session: half the cases come with each.
  const credential: fc.Arbitrary<Credential | undefined> =
    route.auth === 'key' ? fc.constantFrom<Credential>('key', 'session') : fc.constant(route.auth === 'session' ? 'session' : undefined);
  return fc.record({ credential, params, query, body }).map(({ credential: chosenCredential, params: chosen, query: chosenQuery, body: chosenBody }) => ({
    ...(chosenCredential === undefined ? {} : { credential: chosenCredential }),
    params: chosen,
    ...(chosenQuery === undefined ? {} : { query: chosenQuery }),
    ...(chosenBody === undefined ? {} : { body: chosenBody }),
  }));
}

function withTimeout<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} hung for ${HANG_MS} ms`)), HANG_MS);
  });
  return Promise.race([promise, hung]).finally(() => clearTimeout(timer));
}

/** The request options that prove the caller: none on public routes, the key, or the session cookie from the dashboard's origin. */
async function callerOf(
  route: Endpoint,
  owner: Owner,
  credential: Credential = route.auth === 'session' ? 'session' : 'key',
): Promise<{ key?: string; headers: Record<string, string> }> {
  if (route.auth === 'public') return { headers: {} };
  if (credential === 'key') return { key: owner.key, headers: {} };
  // Signing out ends the session it is called with: each call of it gets one of its own.
  const cookie = route.handler === session.delete.handler ? await owner.signIn() : await owner.session();
  return { headers: { cookie, origin: new URL(publicBase()).origin } };
}

async function send(route: Endpoint, fuzz: FuzzCase, owner: Owner): Promise<ApiResponse> {
  const url = `${pathOf(route, fuzz.params)}${fuzz.query ? `?${fuzz.query}` : ''}`;
  const { headers, ...caller } = await callerOf(route, owner, fuzz.credential);
  return withTimeout(
    request(route.method, url, {
      ...caller,
      ...(fuzz.body === undefined ? { headers } : { rawBody: fuzz.body, headers: { ...headers, 'content-type': 'application/json' } }),
    }),
    `${route.method} ${url.slice(0, 200)}`,
  );
}

function isHtml(response: ApiResponse): boolean {
  return /text\/html/.test(response.headers.get('content-type') ?? '');
}

/** What is wrong with one answer, or undefined: the property, spelled out for the failure message. */
function defectOf(route: Endpoint, accepted: boolean, response: ApiResponse, written: string[]): string | undefined {
  const { status, body } = response;
  if (status >= 500) return `answered ${status}: ${JSON.stringify(body).slice(0, 300)}`;
  if (!accepted && status < 400) return `the schema rejects this input, yet it answered ${status}`;
  if (status < 400) return undefined;
  if (isHtml(response)) {
    if (!routeAnswersHtml(route)) return `answered an HTML ${status} on a JSON route`;
  } else {
    const envelope = body as { success?: unknown; error?: unknown; message?: unknown; field?: unknown };
    if (typeof body !== 'object' || body === null) return `answered ${status} with a body that is not JSON: ${String(body).slice(0, 200)}`;
    if (envelope.success !== false || typeof envelope.error !== 'string' || typeof envelope.message !== 'string')
      return `answered ${status} without the error envelope: ${JSON.stringify(body).slice(0, 300)}`;
    if (envelope.field !== undefined && typeof envelope.field !== 'string') return `field is not a path: ${JSON.stringify(envelope.field)}`;
  }
  if (written.length > 0) return `rejected with ${status}, yet stored ${written.join(', ')}`;
  return undefined;
}

/** The browser pages answer HTML, errors included (as their contracts say); every other route answers JSON. */
function routeAnswersHtml(route: Endpoint): boolean {
  return route.responses[200] === HTML_PAGE || (route.pageStatuses ?? []).length > 0;
}

/** A valid call of the route on the owner's resources, with a body where the route takes one. */
async function validCall(route: Endpoint, owner: Owner): Promise<RouteCall> {
  if (hasPathParameter(route)) return fixtureOf(route)(owner);
  if (referenceFieldsOf(route).length > 0) return referenceCall(route, owner, owner);
  return { params: {}, body: route.example ?? {} };
}

/** The answer a hostile body must get: its status, and on JSON routes its envelope's code and field. */
interface Expected {
  /** `below 500`: any answer but a failure of the service (a bulk import fails a bad entry alone, with 200). */
  status: number | '4xx' | 'below 500';
  error?: string;
  field?: string;
}

async function sendBytes(
  route: Endpoint,
  call: RouteCall,
  owner: Owner,
  body: string | Uint8Array,
  headers: Record<string, string> = {},
): Promise<ApiResponse> {
  const url = `${pathOf(route, call.params)}${call.query ? `?${call.query}` : ''}`;
  const { headers: credentials, ...caller } = await callerOf(route, owner);
  return withTimeout(
    request(route.method, url, {
      ...caller,
      rawBody: body,
      headers: { ...credentials, 'content-type': 'application/json', ...headers },
    }),
    `${route.method} ${url}`,
  );
}

describe('fuzzing every route of the route table', () => {
  let owner: Owner;
  let writes: WriteRecorder;

  beforeAll(async () => {
    owner = await Owner.create();
    await owner.identifiers();
    // Signed in before the writes are watched: signing in writes the session, the member's sign-in and its event.
    await owner.session();
    writes = recordWrites();
  });

  afterAll(() => writes?.stop());

  it('covers every route: each with a path parameter says what kind of resource it names', () => {
    for (const route of ROUTES) {
      if (hasPathParameter(route)) expect(() => fixtureOf(route), routeKey(route)).not.toThrow();
    }
  });

  it('paths no route has, or has for other methods, get a 404 or 405 envelope', async () => {
    const prefixes = [...new Set(ROUTES.map((route) => route.path.split('/{')[0]!))];
    const rawSegment = fc.oneof(hostileParam.map(urlEncoded), fc.constantFrom('%', '%E0%A4%A', '%zz', '%ED%A0%80', '..', '.', '%2F', ''));
    const paths = fc
      .tuple(fc.constantFrom(...prefixes), fc.array(rawSegment, { minLength: 1, maxLength: 3 }))
      .map(([prefix, segments]) => `${prefix}/${segments.join('/')}`);

    await fc.assert(
      fc.asyncProperty(fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE', 'PUT'), paths, async (method, path) => {
        const response = await withTimeout(request(method, path, { key: owner.key }), `${method} ${path}`);
        const written = writes.take().filter((key) => !isBookkeeping(key));
        // As sent: fetch resolves `.` and `..` segments before the request leaves.
        const matched = matchRoute(method, new URL(path, 'http://localhost').pathname, ROUTES);
        // Paths that reach a route are fuzzed above, per route; here only the answer's form counts.
        const defect =
          response.status >= 500
            ? `answered ${response.status}`
            : matched.kind === 'not-found' && response.status !== 404
              ? `answered ${response.status} for no route`
              : matched.kind === 'method-not-allowed' && response.status !== 405
                ? `answered ${response.status} for a wrong method`
                : response.status >= 400 && !isHtml(response) && response.body?.success !== false
                  ? 'answered without the error envelope'
                  : response.status >= 400 && written.length > 0
                    ? `stored ${JSON.stringify(written)}`
                    : undefined;
        if (defect) throw new Error(`${method} ${path}: ${defect}: ${JSON.stringify(response.body).slice(0, 300)}`);
      }),
      { numRuns: RUNS * 2, seed: Number(process.env.FUZZ_SEED ?? 7), endOnFailure: true },
    );
  }, 300_000);

  it.each(ROUTES.map((route) => [routeKey(route), route] as const))(
    '%s: hostile input gets a 4xx envelope and stores nothing',
    async (_, route) => {
      const schemas = route.request;
      const valid = hasPathParameter(route) ? await fixtureOf(route)(owner) : { params: {} };
      writes.take();

      await fc.assert(
        fc.asyncProperty(casesFor(route, schemas, valid), async (fuzz) => {
          const accepted = schemasAccept(schemas, fuzz);
          const response = await send(route, fuzz, owner);
          const written = writes
            .take()
            .filter((key) => !isBookkeeping(key))
            .map((key) => `${key.command} ${key.pk} ${key.sk}`);
          const defect = defectOf(route, accepted, response, written);
          if (defect) throw new Error(`${route.method} ${route.path} ${JSON.stringify(fuzz).slice(0, 500)}: ${defect}`);
        }),
        { numRuns: RUNS, seed: seedOf(route), endOnFailure: true },
      );
    },
    300_000,
  );

  it('finds the object fields the decisions name in the route schemas, and each refuses an array (and a free map the reserved keys)', async () => {
    const fields = new Set<string>();
    const accepted: string[] = [];
    for (const route of ROUTES) {
      for (const place of objectFields(route.request.body, {})) {
        fields.add(place.freeMap ? `${place.field} (free)` : place.field);
        // At the schema itself, so a new field built with valibot's own strictObject or record is caught even where a request cannot reach it alone.
        if (v.safeParse(place.schema, []).success) accepted.push(`${routeKey(route)} ${place.field}: []`);
        for (const { key, value } of place.freeMap ? reservedKeyed : []) {
          if (v.safeParse(place.schema, value).success) accepted.push(`${routeKey(route)} ${place.field}: ${key}`);
        }
      }
    }

    expect([...fields]).toEqual(
      expect.arrayContaining(['customFields (free)', 'settings', 'appearance', 'buttonCustomization', 'styles', 'variables (free)', ' (free)']),
    );
    expect(accepted, 'use strictObject and freeMap of shared/platform/schema/common.ts').toEqual([]);
  });

  // GET and DELETE take no body; a POST without a body schema (the one-click unsubscribe) passes at once.
  const bodyRoutes = ROUTES.filter((route) => route.method === 'POST' || route.method === 'PATCH').map((route) => [routeKey(route), route] as const);

  it.each(bodyRoutes)(
    '%s: the hostile body shapes of the decisions get their 4xx, code and field, and store nothing',
    async (_, route) => {
      const schemas = route.request;
      if (!schemas.body) return;
      const call = await validCall(route, owner);
      const base = call.body ?? {};
      const baseIsValid = schemasAccept(schemas, { params: call.params, ...(call.query ? { query: call.query } : {}), body: JSON.stringify(base) });
      writes.take();
      const defects: string[] = [];
      /** Records what is wrong with one answer: its status, its envelope's code and field (JSON routes), anything stored. */
      const judge = (what: string, response: ApiResponse, { status, error, field }: Expected) => {
        const written = writes
          .take()
          .filter((key) => !isBookkeeping(key))
          .map((key) => `${key.command} ${key.pk} ${key.sk}`);
        const statusOk =
          status === '4xx' ? response.status >= 400 && response.status < 500 : status === 'below 500' ? response.status < 500 : response.status === status;
        const json = !isHtml(response);
        const envelopeOk = !json || ((error === undefined || response.body?.error === error) && (field === undefined || response.body?.field === field));
        if (!statusOk || !envelopeOk || written.length > 0) {
          defects.push(
            `${what}: expected ${status}${error ? ` ${error}` : ''}${field ? ` field ${field}` : ''}, got ${response.status} ${JSON.stringify(response.body).slice(0, 200)}${written.length ? `, stored ${written.join(', ')}` : ''}`,
          );
        }
      };
      const asJson = (body: unknown) => sendBytes(route, call, owner, JSON.stringify(body));
      // With the rest of the body valid, the hostile value is the first thing wrong, so it is what the envelope names.
      const named = (field: string): Expected => (baseIsValid ? { status: 422, error: 'VALIDATION_ERROR', field } : { status: '4xx' });

      for (const place of objectFields(schemas.body, base)) {
        if (place.path.length > 0) {
          for (const shape of NOT_OBJECTS) {
            judge(`${place.field} = ${JSON.stringify(shape)}`, await asJson(withValueAt(base, place.path, shape)), named(place.field));
          }
        }
        if (place.freeMap) {
          for (const { key, value } of reservedKeyed) {
            const field = place.field ? `${place.field}.${key}` : key;
            const body = place.path.length === 0 ? { ...(value as object), ...(base as object) } : withValueAt(base, place.path, value);
            judge(`${field} in a free map`, await asJson(body), named(field));
          }
        }
      }
      // Deep enough to overflow a recursive walk of the body (payload hashing did, and so did echoing a value back), with the key that makes the sends hash it.
      const deepPlaces = [
        ...new Map(
          [...pathsOf(base), ...objectFields(schemas.body, base).map((place) => place.path), ['deep']]
            .filter((path) => path.length > 0)
            .map((path) => [fieldName(path), path]),
        ).values(),
      ];
      // Only where the route takes one (an unknown key would be refused before the deep value is reached); there the decisions want a 4xx.
      const takesKey = 'idempotencyKey' in ((schemas.body as { entries?: object }).entries ?? {});
      for (const path of deepPlaces) {
        const text = JSON.stringify({
          ...(withValueAt(base, path, '__deep__') as object),
          ...(takesKey ? { idempotencyKey: `deep-${routeKey(route)}` } : {}),
        }).replace('"__deep__"', deepJson(20_000));
        judge(`${fieldName(path)} nested 20,000 deep${takesKey ? ' with an idempotency key' : ''}`, await sendBytes(route, call, owner, text), {
          status: takesKey ? '4xx' : 'below 500',
        });
      }

      const text = JSON.stringify(base);
      const notUtf8 = Buffer.concat([
        Buffer.from(text === '{}' ? '{' : `${text.slice(0, -1)},`),
        Buffer.from('"x": "caf'),
        Buffer.from([0xc3, 0x28]),
        Buffer.from('"}'),
      ]);
      judge('bytes that are not UTF-8', await sendBytes(route, call, owner, notUtf8), { status: 400, error: 'INVALID_JSON' });
      judge('Content-Encoding: gzip', await sendBytes(route, call, owner, gzipSync(text), { 'content-encoding': 'gzip' }), {
        status: 415,
        error: 'UNSUPPORTED_MEDIA_TYPE',
      });
      judge('Content-Encoding: br', await sendBytes(route, call, owner, brotliCompressSync(text), { 'content-encoding': 'br' }), {
        status: 415,
        error: 'UNSUPPORTED_MEDIA_TYPE',
      });

      expect(defects).toEqual([]);
    },
    300_000,
  );
});
