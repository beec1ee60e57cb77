/**
 * The team's rules: who joins, with which role, and who leaves, each change
 * recorded as an audit event in its own transaction (docs/webhooks.md). The
 * last admin of an account can be neither removed nor demoted (LAST_ADMIN),
 * a count's condition that holds between racing requests too. A change holds
 * at once on the member's sessions: every request's session check reads the
 * member (shared/accounts/sessions.ts).
 */
import { eventWrite } from '#shared/events/service.ts';
import { notFound } from '#shared/platform/errors.ts';
import { newId } from '#shared/platform/ids.ts';
import { findById } from '#shared/platform/lookup.ts';
import type { Actor } from './api-keys.ts';
import { deleteMember, getMember, insertMember, listMembers, setMemberRole, type MemberRecord, type MemberRole } from './member-store.ts';

type MemberEvent = 'member.added' | 'member.updated' | 'member.removed';

/** The event of a change to `member`: the member as it is afterwards (as it was, for a removal) and who made the change; never a secret. */
function memberEvent(type: MemberEvent, member: MemberRecord, actor: Actor, now: Date, extra: Record<string, unknown> = {}) {
  const data = { memberId: member.memberId, email: member.email, role: member.role, ...extra, actor };
  return eventWrite(member.accountId, { type, data, sourceKey: `member:${member.memberId}:${type}:${now.getTime()}` }, now.getTime());
}

/**
 * Adds `email` to the account's team: MEMBER_EXISTS when it is in it already;
 * undefined when there is no such account.
 */
export async function addMember(accountId: string, input: { email: string; role: MemberRole }, actor: Actor, now: Date): Promise<MemberRecord | undefined> {
  const record: MemberRecord = { accountId, memberId: newId('mem', now.getTime()), email: input.email, role: input.role, createdAt: now.toISOString() };
  return (await insertMember(record, memberEvent('member.added', record, actor, now))) ? record : undefined;
}

export function findMember(accountId: string, memberId: string): Promise<MemberRecord> {
  return findById('mem', memberId, () => getMember(accountId, memberId), notFound.member);
}

/** One page of the team, newest first, and its size. */
export function listTeam(accountId: string, page: number, limit: number): Promise<{ members: MemberRecord[]; total: number }> {
  return listMembers(accountId, (page - 1) * limit, limit);
}

/** Gives the member `role` (the same role changes nothing): LAST_ADMIN for the last admin made a member. */
export async function changeRole(accountId: string, memberId: string, role: MemberRole, actor: Actor, now: Date): Promise<MemberRecord> {
  const record = await findMember(accountId, memberId);
  if (record.role === role) return record;
  const changed = { ...record, role };
  await setMemberRole(record, role, memberEvent('member.updated', changed, actor, now, { previousRole: record.role }));
  return changed;
}

/** Takes the member out of the team: LAST_ADMIN for the last admin. Their sessions on the account end with it. */
export async function removeMember(accountId: string, memberId: string, actor: Actor, now: Date): Promise<void> {
  const record = await findMember(accountId, memberId);
  await deleteMember(record, memberEvent('member.removed', record, actor, now));
}
