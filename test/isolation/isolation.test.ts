/**
 * Tenant isolation, walked from the route table (the contracts): for every route with a caller and a
 * path parameter, another account's key, and another account's signed-in admin, pointed at the
 * owner's resource get exactly the answer an unknown id gets (404) and change nothing; no list
 * shows another account's items to either; a signed link reaches only its own account.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAuthenticated, type Route } from '#shared/platform/http/routes.ts';
import type { Endpoint } from '#shared/platform/http/contract.ts';
import { publicBase } from '#shared/platform/public-urls.ts';
import { ROUTES } from '#functions/routes.ts';
import { randomBase62 } from '#shared/platform/ids.ts';
import { request, type ApiResponse } from '../support/api.ts';
import { uniqueAddress } from '../sending/support.ts';
import { isBookkeeping, recordWrites, type WriteRecorder } from '../fuzz/stored-writes.ts';
import { fixtureOf, hasPathParameter, Owner, pathOf, referenceCall, referenceFieldsOf, routeKey, type RouteCall } from './resources.ts';

/** How a caller proves who it is: its account's key, or its signed-in admin's session cookie (from the dashboard's origin). */
type Credential = 'key' | 'session';

/** The credentials a route takes: `session` routes no key. */
function credentialsOf(route: Pick<Route, 'auth'>): Credential[] {
  return route.auth === 'session' ? ['session'] : ['key', 'session'];
}

async function send(route: Pick<Route, 'method' | 'path'>, call: RouteCall, caller: Owner, credential: Credential = 'key'): Promise<ApiResponse> {
  return request(route.method, `${pathOf(route, call.params)}${call.query ? `?${call.query}` : ''}`, {
    ...(credential === 'key' ? { key: caller.key } : { headers: { cookie: await caller.session(), origin: new URL(publicBase()).origin } }),
    ...(call.body === undefined ? {} : { body: call.body }),
  });
}

/** `[name, route, credential]` for each credential a route takes. */
type CredentialCase = [name: string, route: Endpoint, credential: Credential];

function byCredential(routes: readonly Endpoint[]): CredentialCase[] {
  return routes.flatMap((route) => credentialsOf(route).map((credential): CredentialCase => [`${routeKey(route)} (${credential})`, route, credential]));
}

/** A value of the same kind nobody owns: `aud_…` gives another `aud_…`, an address another address. */
function unknownLike(value: string): string {
  if (value.includes('@')) return uniqueAddress('nobody');
  const prefix = /^[a-z]+_/.exec(value)?.[0];
  if (!prefix) throw new Error(`no unknown counterpart for ${value}`);
  return `${prefix}${randomBase62(value.length - prefix.length)}`;
}

/** The same call on ids nobody owns. */
function withUnknownIds(call: RouteCall): RouteCall {
  return { ...call, params: Object.fromEntries(Object.entries(call.params).map(([name, value]) => [name, unknownLike(value)])) };
}

/** The answer with the path's values blanked, so two answers about different ids compare. */
function withoutValues(body: unknown, values: string[]): unknown {
  let text = JSON.stringify(body);
  for (const value of values) text = text.split(value).join('<value>');
  return JSON.parse(text) as unknown;
}

/** Whether an answer carries `identifier` as a whole value or as a URL's last segment (`…/f/<slug>`). */
function mentions(body: unknown, identifier: string): boolean {
  const text = JSON.stringify(body);
  return text.includes(`"${identifier}"`) || text.includes(`/${identifier}"`);
}

const keyedWithIds = ROUTES.filter((route) => isAuthenticated(route) && hasPathParameter(route));
const keyedWithIdsAndBodies = keyedWithIds.filter((route) => ['POST', 'PATCH'].includes(route.method));
/** Every route whose body may name an audience or a template. */
const bodyReferences = ROUTES.filter((route) => referenceFieldsOf(route).length > 0);
/** A list answers its items at the top level; a keyed GET answering `data` (the account's statistics) names no item of anyone's. */
const answersData = (route: (typeof ROUTES)[number]) => {
  const reply = route.responses[200];
  return typeof reply === 'object' && 'entries' in reply && 'data' in (reply.entries as object);
};
const keyedLists = ROUTES.filter((route) => isAuthenticated(route) && route.method === 'GET' && !hasPathParameter(route) && !answersData(route));

describe('tenant isolation', () => {
  let owner: Owner;
  let stranger: Owner;
  let writes: WriteRecorder;
  let owned: string[];

  beforeAll(async () => {
    [owner, stranger] = await Promise.all([Owner.create(), Owner.create()]);
    owned = await owner.identifiers();
    // Signed in before the writes are watched: signing in writes the session, the member's sign-in and its event.
    await Promise.all([owner.session(), stranger.session()]);
    writes = recordWrites();
  });

  afterAll(() => writes?.stop());

  it('covers every keyed route with a path parameter and every keyed list', () => {
    expect(keyedWithIds.length).toBeGreaterThan(10);
    expect(keyedLists.length).toBeGreaterThan(3);
    expect(bodyReferences.map(routeKey)).toEqual(
      expect.arrayContaining(['POST /api/contacts', 'POST /api/email/send', 'POST /api/otp', 'POST /preferences/{token}', 'PATCH /api/forms/{id}']),
    );
    for (const route of keyedWithIds) expect(() => fixtureOf(route), routeKey(route)).not.toThrow();
  });

  describe.each<CredentialCase>(byCredential(keyedWithIds))('%s', (_, route, credential) => {
    it("another account's caller gets the answer of an unknown id, 404, and changes nothing", async () => {
      const call = await fixtureOf(route)(owner);
      const unknown = withUnknownIds(call);

      writes.take();
      const foreign = await send(route, call, stranger, credential);
      const written = writes.take().filter((key) => !isBookkeeping(key));
      const missing = await send(route, unknown, stranger, credential);

      expect({ status: foreign.status, written }).toEqual({ status: 404, written: [] });
      expect(withoutValues(foreign.body, Object.values(call.params))).toEqual(withoutValues(missing.body, Object.values(unknown.params)));
      expect(missing.status).toBe(404);
    });

    // The same call by the owner succeeds, so the 404 above is the account's doing, not the call's. A change the owner's
    // key made already (a broadcast sent, then cancelled) would be refused a second time for its state: the key shows it.
    const madeByTheKey = credential === 'session' && route.auth === 'key' && route.method !== 'GET';
    it.skipIf(route.method === 'DELETE' || madeByTheKey)('the owner gets a 2xx for the same call', async () => {
      const call = await fixtureOf(route)(owner);
      const own = await send(route, call, owner, credential);
      expect(own.status, JSON.stringify(own.body)).toBeLessThan(300);
    });
  });

  // Bodies are validated before ids are looked up, on every route: an invalid body answers alike whoever owns the id.
  describe.each<CredentialCase>(byCredential(keyedWithIdsAndBodies))('%s', (_, route, credential) => {
    it("with an invalid body, another account's id answers like an unknown id", async () => {
      const call = { ...(await fixtureOf(route)(owner)), body: { notAField: true } };
      const unknown = withUnknownIds(call);

      const foreign = await send(route, call, stranger, credential);
      const missing = await send(route, unknown, stranger, credential);

      expect(foreign.status).toBeGreaterThanOrEqual(400);
      expect(foreign.status).toBeLessThan(500);
      expect({ status: foreign.status, body: foreign.body }).toEqual({ status: missing.status, body: missing.body });
    });
  });

  describe.each(bodyReferences.map((route) => [routeKey(route), route] as const))('%s', (_, route) => {
    it("naming another account's audience or template answers like an unknown one and stores nothing", async () => {
      const call = await referenceCall(route, owner, stranger);
      const ownedIds = Object.values(call.body as Record<string, unknown>).filter(
        (value): value is string => typeof value === 'string' && owned.includes(value),
      );
      const unknownBody = JSON.parse(ownedIds.reduce((text, id) => text.split(id).join(unknownLike(id)), JSON.stringify(call.body))) as unknown;

      writes.take();
      const foreign = await send(route, call, stranger);
      const written = writes.take().filter((stored) => !isBookkeeping(stored));
      const missing = await send(route, { ...call, body: unknownBody }, stranger);

      expect(ownedIds.length).toBeGreaterThan(0);
      // The preferences page answers a subscription it cannot change with 409, unknown or foreign alike.
      expect({ status: foreign.status, written }).toEqual({ status: isAuthenticated(route) ? 404 : missing.status, written: [] });
      expect(foreign.status).toBeGreaterThanOrEqual(400);
      expect(withoutValues(foreign.body, ownedIds)).toEqual(
        withoutValues(
          missing.body,
          ownedIds.map(() => '<value>'),
        ),
      );
    });
  });

  describe.each<CredentialCase>(byCredential(keyedLists))('%s', (_, route, credential) => {
    it("never shows another account's items", async () => {
      const schemas = route.request;
      const audienceId = (await owner.audience()).id;
      // Also with the owner's audience as the filter, where the list takes one.
      const queries = [
        '',
        ...(schemas.query && 'entries' in schemas.query && 'audienceId' in (schemas.query.entries as object) ? [`audienceId=${audienceId}`] : []),
      ];

      for (const query of queries) {
        const theirs = await send(route, { params: {}, query }, stranger, credential);
        expect(theirs.status, JSON.stringify(theirs.body)).toBeLessThan(500);
        const seen = owned.filter((identifier) => mentions(theirs.body, identifier));
        expect(seen, `${route.path}?${query}`).toEqual([]);
      }
      // The owner's own list shows them: the check above is not vacuous.
      const own = await send(route, { params: {} }, owner, credential);
      expect(
        owned.some((identifier) => mentions(own.body, identifier)),
        JSON.stringify(own.body),
      ).toBe(true);
    });
  });

  it("a signed link reaches only its account: the owner's unsubscribe leaves a stranger's contact of the same address subscribed", async () => {
    const token = await owner.token();
    const { body: audience } = await request('POST', '/api/audiences', { key: stranger.key, body: { name: 'Theirs' } });
    const { body: theirs } = await request('POST', '/api/contacts', { key: stranger.key, body: { email: owner.contactEmail, audienceId: audience.data.id } });

    const preferences = await request('GET', `/preferences/${token}`);
    const unsubscribed = await request('POST', `/unsubscribe/${token}`);

    expect(unsubscribed.status).toBeLessThan(300);
    expect(preferences.body).not.toContain(audience.data.id);
    expect(preferences.body).not.toContain('Theirs');
    expect((await request('GET', `/api/contacts/${theirs.data.id}`, { key: stranger.key })).body.data.status).toBe('subscribed');
    expect((await request('GET', `/api/contacts/${(await owner.contact()).id}`, { key: owner.key })).body.data.status).toBe('unsubscribed');
  });

  it("a confirmation link confirms only in its account: a stranger's pending contact of the same address stays pending", async () => {
    const token = await owner.confirmationToken();
    const { body: audience } = await request('POST', '/api/audiences', { key: stranger.key, body: { name: 'Theirs' } });
    const { body: theirs } = await request('POST', '/api/contacts', {
      key: stranger.key,
      body: { email: owner.contactEmail, audienceId: audience.data.id, status: 'pending' },
    });

    const page = await request('GET', `/confirm/${token}`);
    const confirmed = await request('POST', `/confirm/${token}`);

    expect(page.body).not.toContain(audience.data.id);
    // The owner's own contact is no longer pending once the unsubscribe test ran: 200 or 409, never another account's change.
    expect([200, 409]).toContain(confirmed.status);
    expect((await request('GET', `/api/contacts/${theirs.data.id}`, { key: stranger.key })).body.data.status).toBe('pending');
  });
});
