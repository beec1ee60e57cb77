/**
 * Under an https public base URL (every deployment: its API or custom domain)
 * the session cookie is `Secure` and named with the `__Host-` prefix, and only
 * that name signs anyone in.
 */
import { describe, expect, it, vi } from 'vitest';
import { request } from '../support/api.ts';
import { accountWithMember, mailedCode, runMailWorker, sessionCookieOf } from './support.ts';

// Before the imports above, which read the configuration as they load (test/support/setup.ts sets an http one).
vi.hoisted(() => {
  process.env.PUBLIC_BASE_URL = 'https://mail.example.test';
});

runMailWorker();

describe('the session cookie under https', () => {
  it('is __Host-postlane_session; Secure; HttpOnly; SameSite=Strict; Path=/, and the unprefixed name is not read', async () => {
    const account = await accountWithMember();
    const code = await mailedCode(account.email);

    const signedIn = await request('POST', '/api/session', { body: { email: account.email, code } });
    const cookie = sessionCookieOf(signedIn);
    const token = cookie.split('=')[1]!;
    const read = await request('GET', '/api/session', { headers: { cookie } });
    const unprefixed = await request('GET', '/api/session', { headers: { cookie: `postlane_session=${token}` } });
    const change = await request('POST', '/api/audiences', { body: { name: 'x' }, headers: { cookie, origin: 'https://mail.example.test' } });

    expect(signedIn.headers.getSetCookie()).toEqual([`__Host-postlane_session=${token}; Max-Age=604800; Path=/; HttpOnly; SameSite=Strict; Secure`]);
    expect([read.status, unprefixed.status, change.status]).toEqual([200, 401, 201]);
  });
});
