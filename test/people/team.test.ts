/**
 * The team over HTTP: admins' sessions add, list, change and remove members;
 * each change holds at once on the member's sessions and is an audit event.
 */
import { describe, expect, it } from 'vitest';
import { createApiKey } from '#shared/accounts/api-keys.ts';
import { request } from '../support/api.ts';
import { expectErrorReply } from '../support/arrange.ts';
import { admin } from '../support/admin-cli.ts';
import { uniqueAddress } from '../sending/support.ts';
import { accountWithMember, asPerson, inboxOf, runMailWorker, signIn, signedInAdmin } from './support.ts';

runMailWorker();

const LAST_ADMIN = { error: 'LAST_ADMIN', message: 'The account must keep at least one admin: make another member admin first' };

/** The account's events of `type`, as its key reads them. */
async function eventsOf(key: string, type: string): Promise<{ type: string; data: Record<string, unknown> }[]> {
  const response = await request('GET', `/api/events?type=${type}&limit=100`, { key });
  expect(response.status).toBe(200);
  return response.body.events;
}

describe('/api/team', () => {
  it('adds a member, mails them the dashboard address, and lists the team newest first', async () => {
    const owner = await signedInAdmin();
    const email = uniqueAddress('grace');

    const added = await asPerson(owner.person, 'POST', '/api/team', { body: { email: email.toUpperCase() } });
    const [invitation] = await inboxOf(email, 1);
    const again = await asPerson(owner.person, 'POST', '/api/team', { body: { email, role: 'admin' } });
    const listed = await asPerson(owner.person, 'GET', '/api/team?limit=1');

    expect(added.status).toBe(201);
    expect(added.body.data).toEqual({ id: expect.stringMatching(/^mem_/), email, role: 'member', createdAt: expect.any(String), lastSignInAt: null });
    expect(invitation).toMatchObject({ from: 'Postlane <no-reply@postlane.test>', subject: `You were added to ${owner.accountId} on Postlane` });
    expect(invitation!.body.text).toContain(`${process.env.PUBLIC_BASE_URL}/app/`);
    expectErrorReply(again, 409, { error: 'MEMBER_EXISTS', message: 'This address is already a member of the account', field: 'email' });
    expect(listed.body).toEqual({ success: true, members: [added.body.data], pagination: { total: 2, page: 1, limit: 1, pages: 2 } });
    // The invitation's address signs in.
    expect((await signIn(email)).session.account.id).toBe(owner.accountId);
  });

  it('changes a role and removes a member, each an event naming the member and the admin who did it', async () => {
    const owner = await signedInAdmin();
    const added = (await asPerson(owner.person, 'POST', '/api/team', { body: { email: uniqueAddress('ada') } })).body.data;

    const promoted = await asPerson(owner.person, 'PATCH', `/api/team/${added.id}`, { body: { role: 'admin' } });
    const removed = await asPerson(owner.person, 'DELETE', `/api/team/${added.id}`);
    const gone = await asPerson(owner.person, 'PATCH', `/api/team/${added.id}`, { body: { role: 'member' } });

    expect(promoted.body.data).toEqual({ ...added, role: 'admin' });
    expect(removed.body).toEqual({ success: true, message: 'Member removed' });
    expectErrorReply(gone, 404, { error: 'MEMBER_NOT_FOUND', message: 'Member not found' });
    const actor = { type: 'member', id: owner.memberId };
    const member = { memberId: added.id, email: added.email };
    expect((await eventsOf(owner.key, 'member.added')).map((event) => event.data)).toEqual(
      expect.arrayContaining([
        { ...member, role: 'member', actor },
        { memberId: owner.memberId, email: owner.email, role: 'admin', actor: { type: 'operator', id: 'test' } },
      ]),
    );
    expect((await eventsOf(owner.key, 'member.updated')).map((event) => event.data)).toEqual([{ ...member, role: 'admin', previousRole: 'member', actor }]);
    expect((await eventsOf(owner.key, 'member.removed')).map((event) => event.data)).toEqual([{ ...member, role: 'admin', actor }]);
    expect((await eventsOf(owner.key, 'session.created')).map((event) => event.data)).toEqual([
      { sessionId: expect.stringMatching(/^ses_/), memberId: owner.memberId, email: owner.email, actor: { type: 'member', id: owner.memberId } },
    ]);
  });

  it('keeps the last admin: neither demoted nor removed (409 LAST_ADMIN), also when two admins demote each other at once', async () => {
    const owner = await signedInAdmin();
    const second = (await asPerson(owner.person, 'POST', '/api/team', { body: { email: uniqueAddress('second'), role: 'admin' } })).body.data;
    const secondPerson = await signIn(second.email);

    const [one, other] = await Promise.all([
      asPerson(owner.person, 'PATCH', `/api/team/${second.id}`, { body: { role: 'member' } }),
      asPerson(secondPerson, 'PATCH', `/api/team/${owner.memberId}`, { body: { role: 'member' } }),
    ]);
    const statuses = [one.status, other.status].sort();
    const remaining = [one, other].find((response) => response.status === 200) === one ? owner : { person: secondPerson, memberId: second.id };
    const demoteLast = await asPerson(remaining.person, 'PATCH', `/api/team/${remaining.memberId}`, { body: { role: 'member' } });
    const removeLast = await asPerson(remaining.person, 'DELETE', `/api/team/${remaining.memberId}`);

    // The loser is refused by the count (409), or, when the winner's change landed before its session was checked, as a member (403).
    expect(statuses[0]).toBe(200);
    expect([403, 409]).toContain(statuses[1]);
    expectErrorReply(demoteLast, 409, LAST_ADMIN);
    expectErrorReply(removeLast, 409, LAST_ADMIN);
    const team = (await asPerson(remaining.person, 'GET', '/api/team')).body.members as { role: string }[];
    expect(team.filter((member) => member.role === 'admin')).toHaveLength(1);
  });

  it("ends a removed member's sessions, and holds a change of role, from their very next request", async () => {
    const owner = await signedInAdmin();
    const [demoted, removed] = await Promise.all(
      ['demoted', 'removed'].map(
        async (name) => (await asPerson(owner.person, 'POST', '/api/team', { body: { email: uniqueAddress(name), role: 'admin' } })).body.data,
      ),
    );
    const [demotedPerson, removedPerson] = [await signIn(demoted.email), await signIn(removed.email)];
    expect((await asPerson(demotedPerson, 'GET', '/api/team')).status).toBe(200);

    await asPerson(owner.person, 'PATCH', `/api/team/${demoted.id}`, { body: { role: 'member' } });
    await asPerson(owner.person, 'DELETE', `/api/team/${removed.id}`);

    expect((await asPerson(demotedPerson, 'GET', '/api/team')).status).toBe(403);
    expect((await asPerson(demotedPerson, 'GET', '/api/audiences')).status).toBe(200);
    expect((await asPerson(demotedPerson, 'GET', '/api/session')).body.data.member.role).toBe('member');
    expectErrorReply(await asPerson(removedPerson, 'GET', '/api/session'), 401, {
      error: 'UNAUTHORIZED',
      message: 'Not signed in, or the session has ended: sign in again',
    });
    expect((await asPerson(removedPerson, 'GET', '/api/audiences')).status).toBe(401);
  });

  it('refuses API keys of any permission (403: people are managed by people), and answers 401 to nobody', async () => {
    const account = await accountWithMember();
    const sending = await createApiKey({ accountId: account.accountId, env: 'live', permission: 'sending' });
    const forbidden = { error: 'FORBIDDEN', message: 'This route takes a signed-in person, not an API key: people are managed by people' };

    expectErrorReply(await request('GET', '/api/team', { key: account.key }), 403, forbidden);
    expectErrorReply(await request('POST', '/api/team', { key: sending.key, body: { email: uniqueAddress() } }), 403, forbidden);
    expectErrorReply(await request('GET', '/api/team'), 401, { error: 'UNAUTHORIZED', message: 'Not signed in, or the session has ended: sign in again' });
  });
});

describe('admin member add', () => {
  it('adds an admin by default, prints {id, email, role}, and records the operator as the actor', async () => {
    const account = await accountWithMember();
    const email = uniqueAddress('operator-made');

    const made = await admin(['member', 'add', '--account', account.accountId, '--email', email]);
    const twice = await admin(['member', 'add', '--account', account.accountId, '--email', email, '--role', 'member']);
    const unknown = await admin(['member', 'add', '--account', 'acc_nothing', '--email', email]);
    const badRole = await admin(['member', 'add', '--account', account.accountId, '--email', email, '--role', 'owner']);

    const printed = JSON.parse(made.stdout);
    expect(printed).toEqual({ id: expect.stringMatching(/^mem_/), email, role: 'admin' });
    expect([twice.code, twice.stderr]).toEqual([1, 'This address is already a member of the account\n']);
    expect([unknown.code, unknown.stderr]).toEqual([1, 'Unknown account acc_nothing\n']);
    expect(badRole.code).toBe(2);
    const [event] = (await eventsOf(account.key, 'member.added')).filter((added) => added.data.memberId === printed.id);
    expect(event!.data.actor).toEqual({ type: 'operator', id: 'admin-cli' });
  });
});
