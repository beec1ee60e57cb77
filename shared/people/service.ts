/**
 * What people do with the API: sign in with a code mailed to them, look at
 * and switch their session, and (admins) manage the team, which mails each
 * new member an invitation. The records, the session check and the team's
 * rules are the accounts area's (shared/accounts/sign-in.ts, sessions.ts,
 * members.ts), beside the API keys; this area adds the mail, which goes
 * through the sending area, and the views the API answers
 * (./schema.ts). Kept apart from accounts because sending builds on
 * accounts: mail sent from accounts would make a cycle.
 */
import { actorOf, type SessionPrincipal } from '#shared/accounts/api-keys.ts';
import { addMember, changeRole, listTeam, removeMember } from '#shared/accounts/members.ts';
import { getAccount, membershipsOf, type MemberRecord } from '#shared/accounts/service.ts';
import type { SignedIn } from '#shared/accounts/sessions.ts';
import { endSession, issueSignInCode, SIGN_IN_CODES, signIn, switchAccount } from '#shared/accounts/sign-in.ts';
import { pagination, type ListPage } from '#shared/platform/schema/common.ts';
import { queueServiceEmail } from '#shared/sending/service-mail.ts';
import { invitationEmail, signInCodeEmail } from './mail.ts';
import type { AddMemberInput, Member, MemberRole, Session, SignInInput } from './schema.ts';

/** The one answer of POST /api/session/code, whatever the address and whatever happened. */
export const CODE_REQUESTED = 'If the address belongs to a member, a sign-in code is on its way to it';

/**
 * A new code for the address, mailed when the address is a member's. The
 * request makes the same calls for anyone (the lookup of the address's
 * accounts and the code's write together, then one queued message), so
 * neither its answer nor its time tells a member from a stranger. Past the
 * hour's 5 codes nothing is stored or queued.
 */
export async function requestSignInCode(email: string, now: Date): Promise<void> {
  const [memberships, code] = await Promise.all([membershipsOf(email), issueSignInCode(email, now)]);
  if (code === undefined) return;
  await queueServiceEmail(signInCodeEmail(email, code, SIGN_IN_CODES.validMs / 60_000), { send: memberships.length > 0 });
}

export function memberView(record: MemberRecord): Member {
  return { id: record.memberId, email: record.email, role: record.role, createdAt: record.createdAt, lastSignInAt: record.lastSignInAt ?? null };
}

/** The Session view: who the person is in the current account, and every account they may switch to, by name. */
async function sessionView(signedIn: SignedIn, accountId: string): Promise<Session> {
  const memberships = await membershipsOf(signedIn.email);
  const accounts = await Promise.all(memberships.map((membership) => getAccount(membership.accountId)));
  const named = memberships.flatMap((membership, index) => {
    const account = accounts[index];
    return account ? [{ id: membership.accountId, name: account.name, role: membership.role }] : [];
  });
  const current = named.find((account) => account.id === accountId) ?? { id: accountId, name: accountId };
  return { member: memberView(signedIn.member), account: { id: current.id, name: current.name }, accounts: named, expiresAt: signedIn.expiresAt };
}

/** Exchanges a code for a session: its token (for the cookie) and the Session. */
export async function startSession(input: SignInInput, now: Date): Promise<{ token: string; session: Session }> {
  const { token, signedIn } = await signIn(input, now);
  return { token, session: await sessionView(signedIn, signedIn.member.accountId) };
}

export function currentSession(principal: SessionPrincipal): Promise<Session> {
  return sessionView(principal.session, principal.accountId);
}

export async function switchSessionAccount(principal: SessionPrincipal, accountId: string): Promise<Session> {
  const signedIn = await switchAccount(principal.session, accountId);
  return sessionView(signedIn, accountId);
}

export function signOut(principal: SessionPrincipal): Promise<void> {
  return endSession(principal.session.tokenHash);
}

export async function listMembers(accountId: string, page: number, limit: number): Promise<ListPage<'members', Member>> {
  const { members, total } = await listTeam(accountId, page, limit);
  return { members: members.map(memberView), pagination: pagination(total, page, limit) };
}

/** Adds a member and mails them an invitation with the dashboard's address: MEMBER_EXISTS when they are one already. */
export async function addTeamMember(principal: SessionPrincipal, input: AddMemberInput, now: Date): Promise<Member> {
  const [account, record] = await Promise.all([getAccount(principal.accountId), addMember(principal.accountId, input, actorOf(principal), now)]);
  if (!record || !account) throw new Error(`Account ${principal.accountId} is gone, though its member's session was just checked`);
  await queueServiceEmail(invitationEmail(record.email, account.name, record.role), { send: true });
  return memberView(record);
}

export async function changeMemberRole(principal: SessionPrincipal, memberId: string, role: MemberRole, now: Date): Promise<Member> {
  return memberView(await changeRole(principal.accountId, memberId, role, actorOf(principal), now));
}

export function removeTeamMember(principal: SessionPrincipal, memberId: string, now: Date): Promise<void> {
  return removeMember(principal.accountId, memberId, actorOf(principal), now);
}
