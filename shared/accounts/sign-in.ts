/**
 * Signing in, switching account and signing out: a person proves their
 * address with a code mailed to it (shared/people/service.ts mails it) and
 * gets a session (shared/accounts/sessions.ts checks it on every request).
 * Codes and tokens are stored only as hashes.
 */
import { randomInt, timingSafeEqual } from 'node:crypto';
import { transactWrite, TransactionCancelled } from '#shared/platform/dynamodb/client.ts';
import { notFound } from '#shared/platform/errors.ts';
import { newId, randomBase62 } from '#shared/platform/ids.ts';
import { eventWrite } from '#shared/events/service.ts';
import { getMember, membershipOf, membershipsOf, signInStamp, type MemberRecord, type Membership } from './member-store.ts';
import { invalidCode } from './people-errors.ts';
import { deleteSession, moveSession, sessionPut, type SessionRecord } from './session-store.ts';
import { SESSION_IDLE_MS, sha256, signedInAs, signedOut, tokenHashOf, type SignedIn } from './sessions.ts';
import { spendCode, storeCode, tryCode, type CodeLimits } from './sign-in-code-store.ts';

/** 5 codes an hour per address, each good for 10 minutes and 5 tries (docs/security.md, "Signing in"). */
export const SIGN_IN_CODES: CodeLimits = { perHour: 5, validMs: 10 * 60_000, tries: 5 };

/** ~238 bits: nothing to guess, so a fast hash is enough to store it by. */
const TOKEN_LENGTH = 40;

/** The code's hash, bound to its address: a code is worth nothing for another. */
function codeHashOf(email: string, code: string): string {
  return sha256(`${email}\n${code}`);
}

/** A hash no code has: what a try with no code to compare is compared with, so it costs the same. */
const NO_CODE = sha256('no code');

function sameHash(expected: string, given: string): boolean {
  return timingSafeEqual(Buffer.from(expected, 'hex'), Buffer.from(given, 'hex'));
}

/**
 * A new 6-digit code for the address, replacing its last one, or undefined
 * when the address had its 5 codes this hour. Made for any address that asks:
 * whether it is a member's decides only whether the code is mailed.
 */
export async function issueSignInCode(email: string, now: Date): Promise<string | undefined> {
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  return (await storeCode(email, codeHashOf(email, code), now, SIGN_IN_CODES)) ? code : undefined;
}

export interface NewSession {
  /** The cookie's value: shown once, in the answer's Set-Cookie, and stored nowhere. */
  token: string;
  signedIn: SignedIn;
}

/**
 * Exchanges the address's code for a new session on `accountId`, or on the
 * first account the address joined: INVALID_CODE for a wrong, expired,
 * spent or voided code, and for an address that has none or is no member;
 * ACCOUNT_NOT_FOUND for an account the person is no member of. Every try
 * counts, right or wrong, before the comparison; the code is spent by the
 * transaction that writes the session, so it signs in once.
 */
export async function signIn(input: { email: string; code: string; accountId?: string }, now: Date): Promise<NewSession> {
  const stored = await tryCode(input.email, now, SIGN_IN_CODES);
  const matches = sameHash(stored ?? NO_CODE, codeHashOf(input.email, input.code));
  if (!stored || !matches) throw invalidCode();
  const memberships = await membershipsOf(input.email);
  if (memberships.length === 0) throw invalidCode();
  const chosen = input.accountId === undefined ? memberships[0]! : memberships.find((membership) => membership.accountId === input.accountId);
  if (!chosen) throw notFound.account();

  const token = randomBase62(TOKEN_LENGTH);
  const tokenHash = tokenHashOf(token);
  const record: SessionRecord = {
    sessionId: newId('ses', now.getTime()),
    email: input.email,
    accountId: chosen.accountId,
    memberId: chosen.memberId,
    createdAt: now.toISOString(),
    lastUsedAt: now.toISOString(),
  };
  const actor = { type: 'member', id: chosen.memberId };
  try {
    await transactWrite([
      spendCode(input.email, stored),
      sessionPut(tokenHash, record, Math.ceil((now.getTime() + SESSION_IDLE_MS) / 1000)),
      signInStamp(chosen.accountId, chosen.memberId, now),
      ...eventWrite(
        chosen.accountId,
        {
          type: 'session.created',
          data: { sessionId: record.sessionId, memberId: chosen.memberId, email: input.email, actor },
          sourceKey: `session:${record.sessionId}`,
        },
        now.getTime(),
      ),
    ]);
  } catch (error) {
    if (!(error instanceof TransactionCancelled)) throw error;
    // Spent by a racing sign-in with the same code, or the membership ended meanwhile.
    if (error.reasons[0] === 'ConditionalCheckFailed') throw invalidCode();
    if (error.reasons[2] === 'ConditionalCheckFailed') throw notFound.account();
    throw error;
  }
  const member = (await getMember(chosen.accountId, chosen.memberId)) ?? { ...memberOf(chosen, input.email), lastSignInAt: now.toISOString() };
  return { token, signedIn: signedInAs(tokenHash, record, member) };
}

function memberOf(membership: Membership, email: string): MemberRecord {
  return { accountId: membership.accountId, memberId: membership.memberId, email, role: membership.role, createdAt: membership.joinedAt };
}

/**
 * Moves the session to another account of the person: ACCOUNT_NOT_FOUND for
 * one they are no member of (the same as for one that does not exist).
 */
export async function switchAccount(signedIn: SignedIn, accountId: string): Promise<SignedIn> {
  const membership = await membershipOf(signedIn.email, accountId);
  const member = membership && (await getMember(accountId, membership.memberId));
  if (!member) throw notFound.account();
  const session = await moveSession(signedIn.tokenHash, accountId, member.memberId);
  if (!session) throw signedOut();
  return signedInAs(signedIn.tokenHash, session, member);
}

/** Ends the session on the server. */
export function endSession(tokenHash: string): Promise<void> {
  return deleteSession(tokenHash);
}
