/**
 * Signing in by a code mailed to the address, over HTTP, the codes read from
 * the SES emulator as a person reads their inbox (docs/security.md, "Signing in").
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { request } from '../support/api.ts';
import { expectErrorReply } from '../support/arrange.ts';
import { captureConsole } from '../support/console.ts';
import { uniqueAddress } from '../sending/support.ts';
import { accountWithMember, asPerson, codeIn, inbox, inboxOf, mailedCode, requestCode, runMailWorker, sessionCookieOf, signIn } from './support.ts';
import { addMember } from '#shared/accounts/members.ts';

runMailWorker();
const logs = captureConsole();

afterEach(() => {
  vi.useRealTimers();
});

const INVALID_CODE = { error: 'INVALID_CODE', message: 'The code is wrong or has expired; ask for a new one' };
const MINUTE = 60_000;

/** Moves the clock (Date only; timers and sockets run on) `ms` ahead of now. */
function later(ms: number): void {
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + ms, shouldAdvanceTime: true });
}

describe('POST /api/session/code and POST /api/session', () => {
  it("mails a member a 6-digit code from the deployment's sender, which signs them in to the account with the session cookie", async () => {
    const account = await accountWithMember('admin');

    const asked = await requestCode(account.email);
    const [mail] = await inboxOf(account.email, 1);
    const signedIn = await request('POST', '/api/session', { body: { email: account.email.toUpperCase(), code: codeIn(mail!) } });

    expect(asked.status).toBe(200);
    expect(mail).toMatchObject({ from: 'Postlane <no-reply@postlane.test>', subject: 'Your Postlane sign-in code' });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.data).toEqual({
      member: { id: account.memberId, email: account.email, role: 'admin', createdAt: expect.any(String), lastSignInAt: expect.any(String) },
      account: { id: account.accountId, name: account.accountId },
      accounts: [{ id: account.accountId, name: account.accountId, role: 'admin' }],
      expiresAt: expect.any(String),
    });
    const cookie = sessionCookieOf(signedIn);
    const current = await request('GET', '/api/session', { headers: { cookie } });
    expect(current.status).toBe(200);
    expect(current.body.data.member.id).toBe(account.memberId);
  });

  it("answers the same for a stranger's address and sends it nothing", async () => {
    const stranger = uniqueAddress('stranger');
    const member = await accountWithMember('member');

    const [forStranger, forMember] = [await requestCode(stranger), await requestCode(member.email)];
    await inboxOf(member.email, 1);

    expect({ status: forStranger.status, body: forStranger.body }).toEqual({ status: forMember.status, body: forMember.body });
    expect(await inbox(stranger)).toEqual([]);
  });

  it('signs in to the account asked for, else to the first the address joined', async () => {
    const first = await accountWithMember('member');
    const second = await accountWithMember('admin');
    await addMember(second.accountId, { email: first.email, role: 'admin' }, { type: 'operator', id: 'test' }, new Date());

    const toFirst = await signIn(first.email);
    const toSecond = await signIn(first.email, { accountId: second.accountId });
    const toNeither = await request('POST', '/api/session', { body: { email: first.email, code: await mailedCode(first.email, 3), accountId: second.email } });

    expect(toFirst.session.account.id).toBe(first.accountId);
    expect(toFirst.session.accounts.map((account: { id: string; role: string }) => [account.id, account.role])).toEqual([
      [first.accountId, 'member'],
      [second.accountId, 'admin'],
    ]);
    expect(toSecond.session).toMatchObject({ account: { id: second.accountId }, member: { role: 'admin' } });
    expectErrorReply(toNeither, 404, { error: 'ACCOUNT_NOT_FOUND', message: 'Account not found', field: 'accountId' });
  });

  it('refuses a wrong code with 401 INVALID_CODE, and voids the code after 5 wrong tries', async () => {
    const account = await accountWithMember();
    const code = await mailedCode(account.email);
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');

    const tries = [];
    for (let i = 0; i < 5; i++) tries.push(await request('POST', '/api/session', { body: { email: account.email, code: wrong } }));
    const right = await request('POST', '/api/session', { body: { email: account.email, code } });

    for (const tried of tries) expectErrorReply(tried, 401, INVALID_CODE);
    expectErrorReply(right, 401, INVALID_CODE);
  });

  it('takes the right code within its 5 tries, once', async () => {
    const account = await accountWithMember();
    const code = await mailedCode(account.email);

    for (let i = 0; i < 4; i++) await request('POST', '/api/session', { body: { email: account.email, code: '000000' === code ? '111111' : '000000' } });
    const right = await request('POST', '/api/session', { body: { email: account.email, code } });
    const again = await request('POST', '/api/session', { body: { email: account.email, code } });

    expect(right.status).toBe(200);
    expectErrorReply(again, 401, INVALID_CODE);
  });

  it('holds a code 10 minutes', async () => {
    const [fresh, stale] = [await accountWithMember(), await accountWithMember()];
    const [freshCode, staleCode] = [await mailedCode(fresh.email), await mailedCode(stale.email)];

    later(9 * MINUTE);
    const inTime = await request('POST', '/api/session', { body: { email: fresh.email, code: freshCode } });
    later(10 * MINUTE + 1_000);
    const tooLate = await request('POST', '/api/session', { body: { email: stale.email, code: staleCode } });

    expect(inTime.status).toBe(200);
    expectErrorReply(tooLate, 401, INVALID_CODE);
  });

  it('replaces the last code with a new one', async () => {
    const account = await accountWithMember();
    const first = await mailedCode(account.email, 1);
    const second = await mailedCode(account.email, 2);

    const withFirst = await request('POST', '/api/session', { body: { email: account.email, code: first } });
    const withSecond = await request('POST', '/api/session', { body: { email: account.email, code: second } });

    if (first !== second) expectErrorReply(withFirst, 401, INVALID_CODE);
    expect(withSecond.status).toBe(200);
  });

  it('mails an address at most 5 codes an hour: later requests answer the same and send nothing, until the hour is over', async () => {
    const account = await accountWithMember();

    const answers = [];
    for (let i = 0; i < 7; i++) answers.push(await requestCode(account.email));
    await inboxOf(account.email, 5);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const withinTheHour = await inbox(account.email);
    later(61 * MINUTE);
    await requestCode(account.email);

    expect(new Set(answers.map((answer) => JSON.stringify([answer.status, answer.body]))).size).toBe(1);
    expect(withinTheHour).toHaveLength(5);
    await inboxOf(account.email, 6);
  });

  it('refuses a code that is not 6 digits before counting a try', async () => {
    const account = await accountWithMember();

    const refused = await request('POST', '/api/session', { body: { email: account.email, code: '12345' } });

    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ error: 'VALIDATION_ERROR', field: 'code' });
  });
});

describe('the session', () => {
  it('gets a new token at every sign-in, never the one the browser brought', async () => {
    const account = await accountWithMember();
    const planted = 'postlane_session=chosen-by-an-attacker';

    const code = await mailedCode(account.email);
    const signedIn = await request('POST', '/api/session', { body: { email: account.email, code }, headers: { cookie: planted } });
    const again = await signIn(account.email);

    const cookie = sessionCookieOf(signedIn);
    expect(cookie).not.toBe(planted);
    expect(again.cookie).not.toBe(cookie);
    expect(cookie).toMatch(/^postlane_session=[0-9A-Za-z]{40}$/);
    expect((await request('GET', '/api/session', { headers: { cookie: planted } })).status).toBe(401);
  });

  it('sets the cookie HttpOnly, SameSite=Strict, Path=/, without Secure or the __Host- prefix under an http base URL', async () => {
    const account = await accountWithMember();
    const code = await mailedCode(account.email);

    const signedIn = await request('POST', '/api/session', { body: { email: account.email, code } });

    const [cookie] = signedIn.headers.getSetCookie();
    expect(cookie).toMatch(/^postlane_session=[0-9A-Za-z]{40}; Max-Age=604800; Path=\/; HttpOnly; SameSite=Strict$/);
  });

  it('ends on the server at sign-out: the cookie is cleared, and the old value no longer signs anyone in', async () => {
    const account = await accountWithMember();
    const person = await signIn(account.email);

    const signedOut = await asPerson(person, 'DELETE', '/api/session');
    const replayed = await asPerson(person, 'GET', '/api/session');

    expect(signedOut.body).toEqual({ success: true, message: 'Signed out' });
    expect(signedOut.headers.getSetCookie()).toEqual(['postlane_session=; Max-Age=0; Path=/; HttpOnly; SameSite=Strict']);
    expectErrorReply(replayed, 401, { error: 'UNAUTHORIZED', message: 'Not signed in, or the session has ended: sign in again' });
    expect((await asPerson(person, 'GET', '/api/audiences')).status).toBe(401);
  });

  it('ends 7 days after signing in, however used', async () => {
    const busy = await accountWithMember();
    const busyPerson = await signIn(busy.email);
    const started = Date.now();

    const uses = [];
    for (let hours = 11; hours < 7 * 24; hours += 11) {
      vi.useFakeTimers({ toFake: ['Date'], now: started + hours * 3_600_000, shouldAdvanceTime: true });
      uses.push((await asPerson(busyPerson, 'GET', '/api/session')).status);
    }
    vi.useFakeTimers({ toFake: ['Date'], now: started + 7 * 24 * 3_600_000 + 1_000, shouldAdvanceTime: true });
    const afterAWeek = await asPerson(busyPerson, 'GET', '/api/session');

    expect(uses.every((status) => status === 200)).toBe(true);
    expect(afterAWeek.status).toBe(401);
  });

  it('ends after 12 hours unused', async () => {
    const account = await accountWithMember();
    const person = await signIn(account.email);
    const started = Date.now();

    vi.useFakeTimers({ toFake: ['Date'], now: started + 11 * 3_600_000, shouldAdvanceTime: true });
    const inTime = await asPerson(person, 'GET', '/api/session');
    vi.useFakeTimers({ toFake: ['Date'], now: started + 23 * 3_600_000 + 60_000, shouldAdvanceTime: true });
    const stale = await asPerson(person, 'GET', '/api/session');

    expect([inTime.status, stale.status]).toEqual([200, 401]);
  });

  it('switches to another account of the person, and to no other', async () => {
    const first = await accountWithMember('admin');
    const second = await accountWithMember('member');
    const elsewhere = await accountWithMember('admin');
    await addMember(second.accountId, { email: first.email, role: 'member' }, { type: 'operator', id: 'test' }, new Date());
    const person = await signIn(first.email);

    const switched = await asPerson(person, 'PATCH', '/api/session', { body: { accountId: second.accountId } });
    const refused = await asPerson(person, 'PATCH', '/api/session', { body: { accountId: elsewhere.accountId } });
    const audiences = await asPerson(person, 'POST', '/api/audiences', { body: { name: 'Made in the second' } });

    expect(switched.body.data).toMatchObject({ account: { id: second.accountId }, member: { role: 'member' } });
    expectErrorReply(refused, 404, { error: 'ACCOUNT_NOT_FOUND', message: 'Account not found', field: 'accountId' });
    expect(audiences.status).toBe(201);
    expect((await request('GET', `/api/audiences/${audiences.body.data.id}`, { key: second.key })).status).toBe(200);
  });
});

describe('a session on the keyed routes', () => {
  it("acts on the account's live environment within its own rate window at the plan's limit", async () => {
    const account = await accountWithMember('member', { plan: 'pro' });
    const person = await signIn(account.email);

    const made = await asPerson(person, 'POST', '/api/audiences', { body: { name: 'By a person' } });
    const listed = await asPerson(person, 'GET', '/api/audiences');

    expect(made.status).toBe(201);
    expect(listed.headers.get('x-ratelimit-limit')).toBe('50');
    expect(Number(listed.headers.get('x-ratelimit-remaining'))).toBeLessThan(50);
    expect((await request('GET', `/api/audiences/${made.body.data.id}`, { key: account.key })).status).toBe(200);
  });

  it('is judged by x-api-key when the request carries both', async () => {
    const keyed = await accountWithMember();
    const other = await accountWithMember();
    const person = await signIn(other.email);
    const theirs = await asPerson(person, 'POST', '/api/audiences', { body: { name: 'Theirs' } });

    const withBoth = await asPerson(person, 'GET', `/api/audiences/${theirs.body.data.id}`, { key: keyed.key });
    const withBadKey = await asPerson(person, 'GET', '/api/audiences', { key: 'svc_live_nothing' });

    expect(withBoth.status).toBe(404);
    expect(withBadKey.status).toBe(401);
  });

  it("refuses a change without the dashboard's Origin (403), and takes reads without one", async () => {
    const account = await accountWithMember();
    const person = await signIn(account.email);
    const path = '/api/audiences';

    const noOrigin = await request('POST', path, { body: { name: 'x' }, headers: { cookie: person.cookie } });
    const otherOrigin = await request('POST', path, { body: { name: 'x' }, headers: { cookie: person.cookie, origin: 'https://evil.example' } });
    const signOut = await request('DELETE', '/api/session', { headers: { cookie: person.cookie, origin: 'null' } });
    const read = await request('GET', path, { headers: { cookie: person.cookie } });
    const sameOrigin = await asPerson(person, 'POST', path, { body: { name: 'x' } });
    const keyed = await request('POST', path, { key: account.key, body: { name: 'x' }, headers: { origin: 'https://evil.example' } });

    const forbidden = { error: 'FORBIDDEN', message: "A signed-in request that changes something must come from the dashboard's own origin" };
    expectErrorReply(noOrigin, 403, forbidden);
    expectErrorReply(otherOrigin, 403, forbidden);
    expectErrorReply(signOut, 403, forbidden);
    expect([read.status, sameOrigin.status, keyed.status]).toEqual([200, 201, 201]);
    expect((await asPerson(person, 'GET', '/api/session')).status).toBe(200);
  });

  it('keeps members (role member) out of the team and domains, and admins in', async () => {
    const account = await accountWithMember('admin');
    const member = await accountWithMember('member');
    const [admin, person] = [await signIn(account.email), await signIn(member.email)];
    const forbidden = { error: 'FORBIDDEN', message: "Only the account's admins may do this" };

    expectErrorReply(await asPerson(person, 'GET', '/api/team'), 403, forbidden);
    expectErrorReply(await asPerson(person, 'GET', '/api/domains'), 403, forbidden);
    expectErrorReply(await asPerson(person, 'POST', '/api/domains', { body: { domain: 'm.example.com' } }), 403, forbidden);
    expect((await asPerson(person, 'GET', '/api/audiences')).status).toBe(200);
    expect((await asPerson(admin, 'GET', '/api/team')).status).toBe(200);
    expect((await asPerson(admin, 'GET', '/api/domains')).status).toBe(200);
  });
});

describe('secrets', () => {
  it('puts no code or session token in a URL or a log line', async () => {
    const account = await accountWithMember();

    const code = await mailedCode(account.email);
    const [mail] = await inbox(account.email);
    const response = await request('POST', '/api/session', { body: { email: account.email, code } });
    const cookie = sessionCookieOf(response);
    const token = cookie.split('=')[1]!;
    await request('GET', '/api/session', { headers: { cookie } });

    const secrets = [code, token];
    for (const line of logs) for (const secret of secrets) expect(line).not.toContain(secret);
    const links = [...(mail!.body.html ?? '').matchAll(/href="([^"]*)"/g)].map((match) => match[1]!);
    for (const link of links) expect(link).not.toContain(code);
    expect(JSON.stringify(response.body)).not.toContain(token);
    expect(logs.some((line) => line.includes('"route":"POST /api/session"'))).toBe(true);
  });
});
