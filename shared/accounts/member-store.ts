/**
 * Members: the people of an account. Three kinds of item, written together:
 *
 * - the member, `acc_X#MEM` / `mem_M`: email, role, createdAt, lastSignInAt;
 *   the team lists this partition, newest first (ids sort by time);
 * - the membership, `PERSON#<email>` / `acc_X`: the member's id and role,
 *   under the address, so signing in finds every account of a person with one
 *   query; its `attribute_not_exists` makes an address a member once per account;
 * - the team's counts, `acc_X#MEM` / `COUNT`: `members` (the list's total) and
 *   `admins`, whose condition keeps the last admin from being removed or
 *   demoted, also between racing requests.
 *
 * The membership is keyed by the address, not the account: the one deliberate
 * exception to account-prefixed keys beside the public form routes (docs/data-model.md).
 * It is only ever read by the address a person proved with a mailed code, or
 * by the account of the caller (`membershipOf`).
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import {
  db,
  getMapped,
  putNew,
  queryAll,
  queryPage,
  tableName,
  transactWrite,
  TransactionCancelled,
  type TransactItems,
} from '#shared/platform/dynamodb/client.ts';
import { accountKey } from '#shared/platform/dynamodb/account-item.ts';
import { accountScoped } from '#shared/platform/dynamodb/partition.ts';
import { optionalStrings, strings } from '#shared/platform/dynamodb/attributes.ts';
import { notFound } from '#shared/platform/errors.ts';
import { lastAdmin, memberExists } from './people-errors.ts';

export type MemberRole = 'admin' | 'member';

export interface MemberRecord {
  accountId: string;
  memberId: string;
  /** Trimmed and lower-cased. */
  email: string;
  role: MemberRole;
  createdAt: string;
  lastSignInAt?: string;
}

/** An account of a person, as their address lists it. */
export interface Membership {
  accountId: string;
  memberId: string;
  role: MemberRole;
  /** When the person joined the account: the first one joined is where a sign-in without `accountId` goes. */
  joinedAt: string;
}

const TEAM = 'MEM';
const COUNT_SORT_KEY = 'COUNT';
const PERSON_PREFIX = 'PERSON#';

const memberKey = (accountId: string, memberId: string) => ({ pk: accountScoped(accountId, TEAM), sk: memberId });
const countKey = (accountId: string) => ({ pk: accountScoped(accountId, TEAM), sk: COUNT_SORT_KEY });
const membershipKey = (email: string, accountId: string) => ({ pk: `${PERSON_PREFIX}${email}`, sk: accountId });

function toMember(item: Record<string, unknown>): MemberRecord {
  return {
    ...strings(item, 'accountId', 'memberId', 'email', 'createdAt'),
    role: item.role as MemberRole,
    ...optionalStrings(item, 'lastSignInAt'),
  };
}

function toMembership(item: Record<string, unknown>): Membership {
  return { accountId: item.sk as string, memberId: item.memberId as string, role: item.role as MemberRole, joinedAt: item.joinedAt as string };
}

/** The team's counts moved by one member of `role` joining (+1) or leaving (−1); an admin leaving must leave one behind. */
function countChange(accountId: string, role: MemberRole, change: 1 | -1): TransactItems[number] {
  const admins = role === 'admin' ? change : 0;
  return {
    Update: {
      TableName: tableName,
      Key: countKey(accountId),
      UpdateExpression: 'SET entity = :entity ADD members :change, admins :admins',
      ...(admins === -1 ? { ConditionExpression: 'admins > :one' } : {}),
      ExpressionAttributeValues: { ':entity': 'teamCount', ':change': change, ':admins': admins, ...(admins === -1 ? { ':one': 1 } : {}) },
    },
  };
}

/** A change of role moves the admin count: a demotion must leave an admin behind. */
function adminCountChange(accountId: string, from: MemberRole, to: MemberRole): TransactItems {
  if (from === to) return [];
  const demotion = from === 'admin';
  return [
    {
      Update: {
        TableName: tableName,
        Key: countKey(accountId),
        UpdateExpression: 'ADD admins :change',
        ...(demotion ? { ConditionExpression: 'admins > :one' } : {}),
        ExpressionAttributeValues: { ':change': demotion ? -1 : 1, ...(demotion ? { ':one': 1 } : {}) },
      },
    },
  ];
}

/** Which item of a member write refused it, in the order the writes below list them. */
function refusedAt(error: unknown): number {
  return error instanceof TransactionCancelled ? error.reasons.indexOf('ConditionalCheckFailed') : -1;
}

/**
 * Adds a member with its membership and counts, and `extra` (its event) in the
 * same transaction: MEMBER_EXISTS when the address is a member of the account
 * already; false when there is no such account.
 */
export async function insertMember(record: MemberRecord, extra: TransactItems): Promise<boolean> {
  try {
    await transactWrite([
      putNew({ ...memberKey(record.accountId, record.memberId), entity: 'member', ...record }),
      putNew({
        ...membershipKey(record.email, record.accountId),
        entity: 'membership',
        memberId: record.memberId,
        role: record.role,
        joinedAt: record.createdAt,
      }),
      countChange(record.accountId, record.role, 1),
      { ConditionCheck: { TableName: tableName, Key: accountKey(record.accountId), ConditionExpression: 'attribute_exists(pk)' } },
      ...extra,
    ]);
    return true;
  } catch (error) {
    const at = refusedAt(error);
    if (at === 1) throw memberExists();
    if (at === 3) return false;
    throw error;
  }
}

/** The member, read in the account's home replica (a session's check and every change of the team guard on it). */
export function getMember(accountId: string, memberId: string): Promise<MemberRecord | undefined> {
  return getMapped(memberKey(accountId, memberId), toMember);
}

/** How many members the account has (0 before its first). */
async function countMembers(accountId: string): Promise<number> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: countKey(accountId) }));
  return Number(Item?.members ?? 0);
}

/** Newest first: the members from `offset` on, and how many there are (the team's count, not a scan). */
export async function listMembers(accountId: string, offset: number, limit: number): Promise<{ members: MemberRecord[]; total: number }> {
  const [page, total] = await Promise.all([
    queryPage(
      {
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': memberKey(accountId, '').pk, ':prefix': 'mem_' },
        ScanIndexForward: false,
      },
      offset,
      limit,
      offset + limit,
    ),
    countMembers(accountId),
  ]);
  return { members: page.items.map(toMember), total };
}

/**
 * Gives the member `role`, in the member, its membership and the admin count
 * together, with `extra` (its event): MEMBER_NOT_FOUND when it is gone or its
 * role changed meanwhile (the caller read `record`), LAST_ADMIN when it is the
 * account's last admin and `role` is not admin.
 */
export async function setMemberRole(record: MemberRecord, role: MemberRole, extra: TransactItems): Promise<void> {
  try {
    await transactWrite([
      {
        Update: {
          TableName: tableName,
          Key: memberKey(record.accountId, record.memberId),
          UpdateExpression: 'SET #role = :role',
          ConditionExpression: '#role = :was',
          ExpressionAttributeNames: { '#role': 'role' },
          ExpressionAttributeValues: { ':role': role, ':was': record.role },
        },
      },
      {
        Update: {
          TableName: tableName,
          Key: membershipKey(record.email, record.accountId),
          UpdateExpression: 'SET #role = :role',
          ExpressionAttributeNames: { '#role': 'role' },
          ExpressionAttributeValues: { ':role': role },
        },
      },
      ...adminCountChange(record.accountId, record.role, role),
      ...extra,
    ]);
  } catch (error) {
    const at = refusedAt(error);
    if (at === 0) throw notFound.member();
    if (at === 2) throw lastAdmin();
    throw error;
  }
}

/** Removes the member, its membership and its place in the counts, with `extra`: MEMBER_NOT_FOUND or LAST_ADMIN as `setMemberRole`. */
export async function deleteMember(record: MemberRecord, extra: TransactItems): Promise<void> {
  try {
    await transactWrite([
      {
        Delete: {
          TableName: tableName,
          Key: memberKey(record.accountId, record.memberId),
          ConditionExpression: '#role = :was',
          ExpressionAttributeNames: { '#role': 'role' },
          ExpressionAttributeValues: { ':was': record.role },
        },
      },
      { Delete: { TableName: tableName, Key: membershipKey(record.email, record.accountId) } },
      countChange(record.accountId, record.role, -1),
      ...extra,
    ]);
  } catch (error) {
    const at = refusedAt(error);
    if (at === 0) throw notFound.member();
    if (at === 2) throw lastAdmin();
    throw error;
  }
}

/** The transaction item that stamps a sign-in on the member; it fails the sign-in when the member is gone. */
export function signInStamp(accountId: string, memberId: string, now: Date): TransactItems[number] {
  return {
    Update: {
      TableName: tableName,
      Key: memberKey(accountId, memberId),
      UpdateExpression: 'SET lastSignInAt = :now',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':now': now.toISOString() },
    },
  };
}

/** Every account the address is a member of, in the order joined. */
export async function membershipsOf(email: string): Promise<Membership[]> {
  const items = await queryAll({ KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': `${PERSON_PREFIX}${email}` } });
  return items.map(toMembership).sort((a, b) => a.joinedAt.localeCompare(b.joinedAt) || a.accountId.localeCompare(b.accountId));
}

/** The address's membership of one account, read in the home replica (it guards a session's switch). */
export function membershipOf(email: string, accountId: string): Promise<Membership | undefined> {
  return getMapped(membershipKey(email, accountId), toMembership);
}
