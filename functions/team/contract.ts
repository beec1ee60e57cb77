import { ADMIN_SESSIONS, defineArea, resource } from '#shared/platform/http/contract.ts';
import { addMemberBody, listMembersQuery, memberSchema, updateMemberBody } from '#shared/people/schema.ts';

const member = resource('/api/team', 'member', 'MEMBER_NOT_FOUND', { schema: memberSchema, writeErrors: ['CONFLICT'], access: ADMIN_SESSIONS });

export const team = defineArea('team', {
  list: member.list({
    // The page (Query) and the team's count (GetItem).
    table: ['GetItem', 'Query'],
    query: listMembersQuery,
    name: 'members',
    item: memberSchema,
    summary: 'List the members of the account',
    description: 'Admins only, signed in: an API key of any permission is 403 `FORBIDDEN`, people are managed by people. Newest first.',
  }),
  create: member.create({
    // The account's name for the invitation (GetItem); one transaction: member, membership, event (PutItem), the
    // team's count (UpdateItem) and the account's existence (ConditionCheckItem). The invitation goes on the retry queue.
    table: ['GetItem', 'PutItem', 'UpdateItem', 'ConditionCheckItem'],
    queues: ['retry'],
    body: addMemberBody,
    errors: ['MEMBER_EXISTS'],
    summary: 'Add a member',
    description:
      "Mails the address an invitation with the dashboard's address, where they sign in with a code. `role` is `member` unless given; an address already in the team is 409 `MEMBER_EXISTS`.",
    example: { email: 'grace@example.com', role: 'member' },
  }),
  update: member.update({
    table: ['GetItem', 'PutItem', 'UpdateItem'],
    body: updateMemberBody,
    errors: ['LAST_ADMIN'],
    summary: "Change a member's role",
    description: "Takes effect at once on the member's sessions. The last admin cannot be demoted: 409 `LAST_ADMIN`.",
    example: { role: 'admin' },
  }),
  delete: member.delete({
    table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
    errors: ['LAST_ADMIN'],
    summary: 'Remove a member',
    description: "Ends the person's sessions on this account at once. The last admin cannot be removed: 409 `LAST_ADMIN`.",
  }),
});
