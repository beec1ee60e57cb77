import * as v from 'valibot';
import { emailAddress, paginationQuery, strictObject } from '#shared/platform/schema/common.ts';
import { timestamp } from '#shared/platform/schema/replies.ts';

/** `admin`: everything; `member`: everything but the team, API keys and domains. */
export const MEMBER_ROLES = ['admin', 'member'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

const role = v.picklist(MEMBER_ROLES, 'must be admin or member');

/** Six digits, as mailed; anything else can never match, so it is refused before any try is counted. */
export const SIGN_IN_CODE_PATTERN = /^\d{6}$/;

// Requests.

export const requestCodeBody = strictObject({ email: emailAddress });
export type RequestCodeInput = v.InferOutput<typeof requestCodeBody>;

export const signInBody = strictObject({
  email: emailAddress,
  code: v.pipe(v.string(), v.trim(), v.regex(SIGN_IN_CODE_PATTERN, 'must be the 6 digits of the code mailed to the address')),
  /** The account to sign in to; without it, the first the address joined. */
  accountId: v.optional(v.pipe(v.string(), v.trim(), v.nonEmpty())),
});
export type SignInInput = v.InferOutput<typeof signInBody>;

export const switchAccountBody = strictObject({ accountId: v.pipe(v.string(), v.trim(), v.nonEmpty()) });

export const addMemberBody = strictObject({ email: emailAddress, role: v.optional(role, 'member') });
export type AddMemberInput = v.InferOutput<typeof addMemberBody>;

export const updateMemberBody = strictObject({ role });

export const listMembersQuery = v.object(paginationQuery(20, 100));

// Replies.

export const memberSchema = v.strictObject({
  id: v.string(),
  email: v.string(),
  role,
  createdAt: timestamp,
  /** Null until the person first signs in to this account. */
  lastSignInAt: v.nullable(timestamp),
});
export type Member = v.InferOutput<typeof memberSchema>;

const accountRef = { id: v.string(), name: v.string() };

export const sessionSchema = v.strictObject({
  /** The signed-in person as a member of the current account. */
  member: memberSchema,
  /** The account the session acts on. */
  account: v.strictObject(accountRef),
  /** Every account the person is a member of, in the order joined, with the role there. */
  accounts: v.array(v.strictObject({ ...accountRef, role })),
  /** When the session ends unless used before: 12 hours after its last use, at most 7 days after signing in. */
  expiresAt: timestamp,
});
export type Session = v.InferOutput<typeof sessionSchema>;

/** `{success: true, message}`: a code requested, a session ended. */
export const messageReply = v.strictObject({ success: v.literal(true), message: v.string() });
