/**
 * People tests: members made as the operator makes them, codes read back from
 * the SES emulator's stored messages as a person reads their inbox, sessions
 * held as a browser holds its cookie. The retry queue's worker (which sends
 * the deployment's own mail) runs under the local poller from `runMailWorker`.
 */
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { startRetryWorker } from '#dev/local/retry-worker.ts';
import { addMember } from '#shared/accounts/members.ts';
import { sessionCookieName } from '#shared/accounts/session-cookie.ts';
import { issueSignInCode, signIn as exchangeCode } from '#shared/accounts/sign-in.ts';
import { publicBase } from '#shared/platform/public-urls.ts';
import { createTestAccount, type TestAccount } from '../support/accounts.ts';
import { request, type ApiResponse, type RequestOptions } from '../support/api.ts';
import { eventually } from '../support/eventually.ts';
import { uniqueAddress, type StoredEmail } from '../sending/support.ts';

/** Runs the worker that sends sign-in codes and invitations for the calling file's tests. */
export function runMailWorker(): void {
  let stop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    stop = (await startRetryWorker()).stop;
  });
  afterAll(async () => {
    await stop?.();
  });
}

/** Every message the emulator stored for `address`, oldest first. */
export async function inbox(address: string): Promise<StoredEmail[]> {
  // Searched by the emulator (dev/local/ses.ts), as storedEmails is.
  const response = await fetch(`${inject('sesEndpoint')}/store?to=${encodeURIComponent(address)}`);
  return ((await response.json()) as { emails: StoredEmail[] }).emails;
}

/** Waits until `address` has `count` messages (the worker sends off the request path), and answers them; `subject`: only those. */
export async function inboxOf(address: string, count: number, subject?: string): Promise<StoredEmail[]> {
  const read = async () => (await inbox(address)).filter((email) => subject === undefined || email.subject === subject);
  const messages = await eventually(read, (found) => found.length >= count);
  expect(messages.length, `messages to ${address}`).toBe(count);
  return messages;
}

const CODE_SUBJECT = 'Your Postlane sign-in code';

/** The sign-in codes the address got so far. */
async function codesOf(address: string): Promise<StoredEmail[]> {
  return (await inbox(address)).filter((email) => email.subject === CODE_SUBJECT);
}

/** The 6-digit code of a sign-in message. */
export function codeIn(email: StoredEmail): string {
  const code = /\b(\d{6})\b/.exec(email.body.text ?? '')?.[1];
  if (!code) throw new Error(`no code in ${JSON.stringify(email.body.text)}`);
  return code;
}

export function requestCode(email: string): Promise<ApiResponse> {
  return request('POST', '/api/session/code', { body: { email } });
}

/** Asks for a code and reads it from the `nth` sign-in message (1-based) the address got. */
export async function mailedCode(email: string, nth = 1): Promise<string> {
  expect((await requestCode(email)).status).toBe(200);
  const messages = await inboxOf(email, nth, CODE_SUBJECT);
  return codeIn(messages[nth - 1]!);
}

/** The `name=value` of the session cookie a response set, for a later request's Cookie header. */
export function sessionCookieOf(response: ApiResponse): string {
  const set = response.headers.getSetCookie().find((cookie) => cookie.startsWith(`${sessionCookieName()}=`));
  if (!set) throw new Error(`no session cookie in ${JSON.stringify(response.headers.getSetCookie())}`);
  return set.split(';')[0]!;
}

/** A signed-in person, as their browser holds them: the cookie, and what POST /api/session answered. */
export interface Person {
  email: string;
  cookie: string;
  session: any;
}

/** Signs `email` in with a code mailed to it, through the API as the dashboard does. */
export async function signIn(email: string, body: Record<string, unknown> = {}): Promise<Person> {
  const code = await mailedCode(email, (await codesOf(email)).length + 1);
  const response = await request('POST', '/api/session', { body: { email, code, ...body } });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return { email, cookie: sessionCookieOf(response), session: response.body.data };
}

/** A request as the signed-in person's browser makes it: the cookie, and the dashboard's origin. */
export function asPerson(person: Pick<Person, 'cookie'>, method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> {
  return request(method, path, { ...options, headers: { cookie: person.cookie, origin: new URL(publicBase()).origin, ...options.headers } });
}

/** An account with a key, and a person of `role` in it, added as the operator adds one (no invitation). */
export async function accountWithMember(role: 'admin' | 'member' = 'admin', options: Parameters<typeof createTestAccount>[0] = {}) {
  const account = await createTestAccount(options);
  const email = uniqueAddress(role);
  const member = await addMember(account.accountId, { email, role }, { type: 'operator', id: 'test' }, new Date());
  return { ...account, email, memberId: member!.memberId } as TestAccount & { email: string; memberId: string };
}

/** An account whose admin is signed in. */
export async function signedInAdmin(options: Parameters<typeof createTestAccount>[0] = {}) {
  const account = await accountWithMember('admin', options);
  return { ...account, person: await signIn(account.email) };
}

/**
 * A new admin (or `role`) of the account, signed in as a person is (a code, then what
 * POST /api/session does) without the mail: for tests about what a session
 * reaches rather than how it began. Its Cookie header, and who it is.
 */
export async function signedInCookie(accountId: string, role: 'admin' | 'member' = 'admin'): Promise<{ cookie: string; memberId: string; email: string }> {
  const email = uniqueAddress('signed-in');
  const member = await addMember(accountId, { email, role }, { type: 'operator', id: 'test' }, new Date());
  const code = await issueSignInCode(email, new Date());
  const { token } = await exchangeCode({ email, code: code!, accountId }, new Date());
  return { cookie: `${sessionCookieName()}=${token}`, memberId: member!.memberId, email };
}
