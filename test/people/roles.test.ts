/**
 * What a member (role `member`) may not do, walked from the route table:
 * every route of the team, API keys and domains answers a member's session
 * 403 FORBIDDEN (docs/people.md), reads and writes alike, before it
 * looks at the id or the body; the rest of the API answers them as it
 * answers an admin.
 */
import { describe, expect, it } from 'vitest';
import { ROUTES } from '#functions/routes.ts';
import { isAuthenticated } from '#shared/platform/http/routes.ts';
import { pathOf, routeKey } from '../isolation/resources.ts';
import { accountWithMember, asPerson, runMailWorker, signIn } from './support.ts';

runMailWorker();

/** The areas only admins manage. */
const ADMIN_AREAS = ['/api/team', '/api/api-keys', '/api/domains'];
const isAdminArea = (path: string) => ADMIN_AREAS.some((area) => path === area || path.startsWith(`${area}/`));
const adminRoutes = ROUTES.filter((route) => isAdminArea(route.path));

/** An id of the kind each parameter names: the role is checked before any lookup, so nobody needs to own it. */
const anyIds = { id: 'xyz_0000000000000000000000' };

describe("a member's session", () => {
  it('is the only role the team, API keys and domains are declared for (role admin), and every other keyed route is not', () => {
    for (const area of ADMIN_AREAS)
      expect(adminRoutes.filter((route) => isAdminArea(route.path) && route.path.startsWith(area)).length, area).toBeGreaterThan(3);
    expect(ROUTES.filter((route) => route.role === 'admin').map(routeKey)).toEqual(adminRoutes.map(routeKey));
    for (const route of adminRoutes) expect(isAuthenticated(route), routeKey(route)).toBe(true);
  });

  it('gets 403 FORBIDDEN on every route of the team, API keys and domains, and what an admin gets elsewhere', async () => {
    const account = await accountWithMember('member');
    const member = await signIn(account.email);

    const refusals = await Promise.all(
      adminRoutes.map(
        async (route) => [routeKey(route), await asPerson(member, route.method, pathOf(route, anyIds), route.method === 'GET' ? {} : { body: {} })] as const,
      ),
    );
    const stats = await asPerson(member, 'GET', '/api/stats');
    const emails = await asPerson(member, 'GET', '/api/emails');

    const forbidden = { success: false, error: 'FORBIDDEN', message: "Only the account's admins may do this" };
    expect(refusals.map(([name, response]) => [name, response.status, response.body])).toEqual(adminRoutes.map((route) => [routeKey(route), 403, forbidden]));
    expect([stats.status, emails.status]).toEqual([200, 200]);
  });
});
