/**
 * The session check of every keyed route (shared/accounts/endpoint.ts): a
 * signed-in person's cookie becomes a principal with the member's role, the
 * account's live environment and a rate window of its own. Signing in,
 * switching and signing out are shared/accounts/sign-in.ts's, which this
 * module leaves out of every keyed function's bundle.
 */
import { createHash } from 'node:crypto';
import { AuthError } from '#shared/platform/errors.ts';
import type { RateWindow } from '#shared/platform/http/rate-headers.ts';
import type { SessionPrincipal } from './api-keys.ts';
import { getMember, type MemberRecord, type MemberRole } from './member-store.ts';
import { admitSessionRequest } from './rate-limit.ts';
import { monthlyQuotaOf } from './service.ts';
import { useSession, type SessionRecord } from './session-store.ts';
import { getAccount } from './store.ts';

/** A session ends after this long unused… */
export const SESSION_IDLE_MS = 12 * 3_600_000;
/** …and this long after signing in, however used. */
export const SESSION_LIFETIME_MS = 7 * 86_400_000;

/** The signed-in person of a request, as the session check found them. */
export interface SignedIn {
  sessionId: string;
  /** The key of the session item: a hash, never the token. */
  tokenHash: string;
  email: string;
  memberId: string;
  role: MemberRole;
  member: MemberRecord;
  /** When the session ends unless used before. */
  expiresAt: string;
}

export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The key a session is stored by: the token is never stored. */
export function tokenHashOf(token: string): string {
  return sha256(token);
}

/** When a session used at `lastUsedAt` ends: 12 hours later, or 7 days after it began if sooner. */
function endOf(session: Pick<SessionRecord, 'createdAt' | 'lastUsedAt'>): Date {
  return new Date(Math.min(Date.parse(session.lastUsedAt) + SESSION_IDLE_MS, Date.parse(session.createdAt) + SESSION_LIFETIME_MS));
}

export function signedInAs(tokenHash: string, session: SessionRecord, member: MemberRecord): SignedIn {
  return {
    sessionId: session.sessionId,
    tokenHash,
    email: session.email,
    memberId: member.memberId,
    role: member.role,
    member,
    expiresAt: endOf(session).toISOString(),
  };
}

export const signedOut = () => new AuthError('UNAUTHORIZED', 'Not signed in, or the session has ended: sign in again');

/**
 * The session of a request's cookie: its use recorded (the idle clock starts
 * again), its member read in the account's home replica, so a removal or a
 * change of role holds from the next request, and the request counted in the
 * session's own window at the account's plan limits. 401 when there is no
 * such session, it ended, or its member is gone; 403 when the route needs an
 * admin and the member is not one; 429 past the window.
 */
export async function authenticateSession(token: string, now: Date, role: 'admin' | undefined): Promise<{ principal: SessionPrincipal; window: RateWindow }> {
  const tokenHash = tokenHashOf(token);
  const session = await useSession(tokenHash, now, {
    idleSince: new Date(now.getTime() - SESSION_IDLE_MS),
    startedSince: new Date(now.getTime() - SESSION_LIFETIME_MS),
    expiresAt: Math.ceil((now.getTime() + SESSION_IDLE_MS) / 1000),
  });
  if (!session) throw signedOut();
  const [member, account] = await Promise.all([getMember(session.accountId, session.memberId), getAccount(session.accountId)]);
  if (!member || !account) throw signedOut();
  if (role === 'admin' && member.role !== 'admin') throw new AuthError('FORBIDDEN', "Only the account's admins may do this");
  const window = await admitSessionRequest(session.accountId, session.sessionId, account.plan, now);
  return {
    principal: {
      accountId: session.accountId,
      env: 'live',
      permission: 'full',
      plan: account.plan,
      monthlyQuota: monthlyQuotaOf(account),
      session: signedInAs(tokenHash, session, member),
    },
    window,
  };
}
