/**
 * The suppression list over HTTP (docs/suppressions.md): listing and
 * searching it by the start of an address, adding addresses by hand, lifting
 * one (a complaint only with its confirmation, by an admin), the audit
 * events of both, and what sends do before and after.
 */
import { describe, expect, it } from 'vitest';
import { createApiKey } from '#shared/accounts/api-keys.ts';
import { changeRole } from '#shared/accounts/members.ts';
import { putSuppression } from '#shared/sending/suppression-store.ts';
import { request } from '../support/api.ts';
import { createSender, sendPlain, suppressedFailure, uniqueAddress, type Sender } from '../sending/support.ts';
import { feedback, sendOne, sesEventFor } from '../events/support.ts';
import { asPerson, signedInCookie } from '../people/support.ts';

const add = (key: string, body: unknown) => request('POST', '/api/suppressions', { key, body });
const list = (key: string, query = '') => request('GET', `/api/suppressions${query}`, { key });
const lift = (key: string, email: string, query = '') => request('DELETE', `/api/suppressions/${encodeURIComponent(email)}${query}`, { key });

/** The account's audit events of one type, oldest first. */
async function eventsOf(key: string, type: string) {
  const response = await request('GET', `/api/events?type=${type}`, { key });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return (response.body.events as { type: string; data: Record<string, unknown> }[]).reverse();
}

/** A signed-in admin of the account, and a signed-in member (an admin demoted by the operator: a role change holds from the next request). */
async function adminAndMember(sender: Sender) {
  const admin = await signedInCookie(sender.accountId);
  const member = await signedInCookie(sender.accountId);
  await changeRole(sender.accountId, member.memberId, 'member', { type: 'operator', id: 'test' }, new Date());
  return { admin, member };
}

describe('GET /api/suppressions', () => {
  it('lists every reason with its source in address order, searches by the start of an address and filters by reason, a page at a time', async () => {
    const sender = await createSender();
    const complained = await sendOne(sender);
    await feedback(sesEventFor(sender, complained, 'Complaint'));
    const tag = uniqueAddress('x').split('@')[0]!.split('.')[1]!;
    const [a, b, c] = [`a.${tag}@example.org`, `b.${tag}@example.org`, `c.${tag}@example.org`];
    await putSuppression(sender.accountId, a, 'unsubscribed', new Date());
    expect((await add(sender.key, { emails: [b, c.toUpperCase()] })).status).toBe(201);

    const all = await list(sender.key);
    const searched = await list(sender.key, `?search=${encodeURIComponent(`B.${tag}`)}`);
    const complaints = await list(sender.key, '?reason=complaint');
    const first = await list(sender.key, '?limit=2');
    const second = await list(sender.key, `?limit=2&cursor=${encodeURIComponent(first.body.pagination.nextCursor)}`);
    const otherFilter = await list(sender.key, `?limit=2&reason=manual&cursor=${encodeURIComponent(first.body.pagination.nextCursor)}`);

    expect(all.status).toBe(200);
    expect(all.body.suppressions).toEqual([
      { email: a, reason: 'unsubscribe', createdAt: expect.any(String), source: null },
      { email: b, reason: 'manual', createdAt: expect.any(String), source: { type: 'key', id: sender.keyId } },
      { email: c, reason: 'manual', createdAt: expect.any(String), source: { type: 'key', id: sender.keyId } },
      { email: complained.to, reason: 'complaint', createdAt: expect.any(String), source: { type: 'email', id: complained.id } },
    ]);
    expect(all.body.pagination).toEqual({ limit: 50, nextCursor: null });
    expect(searched.body.suppressions.map((item: { email: string }) => item.email)).toEqual([b]);
    expect(complaints.body.suppressions.map((item: { email: string }) => item.email)).toEqual([complained.to]);
    expect([...first.body.suppressions, ...second.body.suppressions].map((item: { email: string }) => item.email)).toEqual([a, b, c, complained.to]);
    expect([otherFilter.status, otherFilter.body.error, otherFilter.body.field]).toEqual([422, 'VALIDATION_ERROR', 'cursor']);
  });

  it('refuses a bad reason or limit with the field named', async () => {
    const sender = await createSender();
    const reason = await list(sender.key, '?reason=spam');
    const limit = await list(sender.key, '?limit=101');
    expect([reason.status, reason.body.error, reason.body.field]).toEqual([422, 'VALIDATION_ERROR', 'reason']);
    expect([limit.status, limit.body.error, limit.body.field]).toEqual([422, 'VALIDATION_ERROR', 'limit']);
  });
});

describe('POST /api/suppressions', () => {
  it('adds addresses by hand (201), counts those already there, reports each bad one by its index, and records suppression.added with the actor', async () => {
    const sender = await createSender();
    const [fresh, bounced] = [uniqueAddress('fresh'), uniqueAddress('bounced')];
    await putSuppression(sender.accountId, bounced, 'bounced', new Date());

    const response = await add(sender.key, { emails: [fresh, 'not-an-address', bounced, ` ${fresh.toUpperCase()} `, 42], reason: 'manual' });
    const listed = await list(sender.key);

    expect(response.status, JSON.stringify(response.body)).toBe(201);
    expect(response.body).toEqual({
      success: true,
      data: {
        added: 1,
        already: 2,
        failed: 2,
        errors: [
          { index: 1, email: 'not-an-address', error: 'INVALID_EMAIL', message: 'emails[1] must be a valid email address', field: 'emails[1]' },
          { index: 4, email: null, error: 'VALIDATION_ERROR', message: expect.any(String), field: 'emails[4]' },
        ],
      },
    });
    // An address already listed keeps its reason: a bounce is not turned into a manual suppression.
    expect(listed.body.suppressions.map((item: { email: string; reason: string }) => [item.email, item.reason]).sort()).toEqual(
      [
        [fresh, 'manual'],
        [bounced, 'bounce'],
      ].sort(),
    );
    expect((await eventsOf(sender.key, 'suppression.added')).map((event) => event.data)).toEqual([
      { email: fresh, reason: 'manual', actor: { type: 'key', id: sender.keyId } },
    ]);
  });

  it('refuses an empty list, more than 1,000 addresses, another reason and unknown fields', async () => {
    const sender = await createSender();
    const cases = await Promise.all([
      add(sender.key, { emails: [] }),
      add(sender.key, { emails: Array.from({ length: 1001 }, (_, index) => `a${index}@example.org`) }),
      add(sender.key, { emails: ['a@example.org'], reason: 'bounce' }),
      add(sender.key, { emails: ['a@example.org'], note: 'x' }),
      add(sender.key, {}),
    ]);
    expect(cases.map((response) => [response.status, response.body.error, response.body.field])).toEqual([
      [422, 'VALIDATION_ERROR', 'emails'],
      [422, 'VALIDATION_ERROR', 'emails'],
      [422, 'VALIDATION_ERROR', 'reason'],
      [422, 'VALIDATION_ERROR', 'note'],
      [400, 'MISSING_REQUIRED_FIELD', 'emails'],
    ]);
    expect((await list(sender.key)).body.suppressions).toEqual([]);
  });

  it('takes 1,000 addresses in one request', async () => {
    const sender = await createSender();
    const emails = Array.from({ length: 1000 }, (_, index) => `bulk${index}.${sender.keyId.slice(-6).toLowerCase()}@example.org`);
    const response = await add(sender.key, { emails });
    expect([response.status, response.body.data?.added]).toEqual([201, 1000]);
  }, 60_000);

  it('suppresses every send to a manually added address, OTP and transactional included', async () => {
    const sender = await createSender();
    const address = uniqueAddress('manual');
    await add(sender.key, { emails: [address] });

    const send = await sendPlain(sender, [address]);
    const transactional = await request('POST', '/api/transactional/send', {
      key: sender.key,
      body: { from: sender.from, to: address, subject: 'Receipt', content: '<p>Paid</p>' },
    });
    const otp = await request('POST', '/api/otp/send', { key: sender.key, body: { from: sender.from, to: address, code: '123456' } });

    expect([send.status, send.body.failedEmails]).toEqual([422, [suppressedFailure(address)]]);
    expect([transactional.status, transactional.body.error]).toEqual([422, 'RECIPIENT_SUPPRESSED']);
    expect([otp.status, otp.body.error]).toEqual([422, 'RECIPIENT_SUPPRESSED']);
  });
});

describe('DELETE /api/suppressions/{email}', () => {
  it('lifts an unsubscribe, a bounce or a manual suppression, records suppression.removed, and sends reach the address again', async () => {
    const sender = await createSender();
    const [unsubscribed, bounced, manual] = [uniqueAddress('unsub'), uniqueAddress('bounced'), uniqueAddress('manual')];
    await putSuppression(sender.accountId, unsubscribed, 'unsubscribed', new Date());
    await putSuppression(sender.accountId, bounced, 'bounced', new Date());
    await add(sender.key, { emails: [manual] });
    expect((await sendPlain(sender, [bounced])).body.failedEmails).toEqual([suppressedFailure(bounced)]);

    const lifted = await Promise.all([lift(sender.key, unsubscribed), lift(sender.key, bounced.toUpperCase()), lift(sender.key, manual)]);
    const again = await lift(sender.key, manual);
    const send = await sendPlain(sender, [unsubscribed, bounced, manual]);

    expect(lifted.map((response) => [response.status, response.body.success])).toEqual([
      [200, true],
      [200, true],
      [200, true],
    ]);
    expect([again.status, again.body.error]).toEqual([404, 'SUPPRESSION_NOT_FOUND']);
    expect([send.status, send.body.successfulEmails.length, send.body.failedEmails]).toEqual([200, 3, []]);
    expect((await list(sender.key)).body.suppressions).toEqual([]);
    const removed = await eventsOf(sender.key, 'suppression.removed');
    expect(removed.map((event) => [event.data.email, event.data.reason, event.data.actor]).sort()).toEqual(
      [
        [unsubscribed, 'unsubscribe', { type: 'key', id: sender.keyId }],
        [bounced, 'bounce', { type: 'key', id: sender.keyId }],
        [manual, 'manual', { type: 'key', id: sender.keyId }],
      ].sort(),
    );
  });

  it('lifts a complaint only with confirm=complaint (409 COMPLAINT_CONFIRMATION_REQUIRED otherwise)', async () => {
    const sender = await createSender();
    const email = await sendOne(sender);
    await feedback(sesEventFor(sender, email, 'Complaint'));

    const unconfirmed = await lift(sender.key, email.to);
    const wrong = await lift(sender.key, email.to, '?confirm=yes');
    const stillRefused = await sendPlain(sender, [email.to]);
    const confirmed = await lift(sender.key, email.to, '?confirm=complaint');
    const sent = await sendPlain(sender, [email.to]);

    expect([unconfirmed.status, unconfirmed.body.error, unconfirmed.body.field]).toEqual([409, 'COMPLAINT_CONFIRMATION_REQUIRED', 'confirm']);
    expect(unconfirmed.body.message).toMatch(/spam/);
    expect([wrong.status, wrong.body.error, wrong.body.field]).toEqual([422, 'VALIDATION_ERROR', 'confirm']);
    expect(stillRefused.body.failedEmails).toEqual([suppressedFailure(email.to)]);
    expect(confirmed.status).toBe(200);
    expect([sent.status, sent.body.failedEmails]).toEqual([200, []]);
    expect((await eventsOf(sender.key, 'suppression.removed')).map((event) => event.data)).toEqual([
      { email: email.to, reason: 'complaint', actor: { type: 'key', id: sender.keyId } },
    ]);
  });

  it("answers an unknown address and another account's alike: 404 SUPPRESSION_NOT_FOUND, nothing lifted", async () => {
    const [owner, stranger] = await Promise.all([createSender(), createSender()]);
    const address = uniqueAddress('owned');
    await add(owner.key, { emails: [address] });

    const theirs = await lift(stranger.key, address);
    const unknown = await lift(stranger.key, uniqueAddress('nobody'));
    const seen = await list(stranger.key);

    expect([theirs.status, theirs.body]).toEqual([404, { success: false, error: 'SUPPRESSION_NOT_FOUND', message: unknown.body.message }]);
    expect(unknown.status).toBe(404);
    expect(seen.body.suppressions).toEqual([]);
    expect((await list(owner.key)).body.suppressions.map((item: { email: string }) => item.email)).toEqual([address]);
  });
});

describe('who may manage the list', () => {
  it('a member adds and lifts what is not a complaint; only an admin lifts a complaint; the actor is the member', async () => {
    const sender = await createSender();
    const complained = await sendOne(sender);
    await feedback(sesEventFor(sender, complained, 'Complaint'));
    const { admin, member } = await adminAndMember(sender);
    const address = uniqueAddress('by-member');

    const added = await asPerson(member, 'POST', '/api/suppressions', { body: { emails: [address] } });
    const listed = await asPerson(member, 'GET', '/api/suppressions');
    const lifted = await asPerson(member, 'DELETE', `/api/suppressions/${encodeURIComponent(address)}`);
    const complaintByMember = await asPerson(member, 'DELETE', `/api/suppressions/${encodeURIComponent(complained.to)}?confirm=complaint`);
    const complaintByAdmin = await asPerson(admin, 'DELETE', `/api/suppressions/${encodeURIComponent(complained.to)}?confirm=complaint`);

    expect([added.status, listed.status, lifted.status]).toEqual([201, 200, 200]);
    expect([complaintByMember.status, complaintByMember.body.error]).toEqual([403, 'FORBIDDEN']);
    expect(complaintByAdmin.status).toBe(200);
    const byMember = { type: 'member', id: member.memberId };
    expect((await eventsOf(sender.key, 'suppression.added')).map((event) => event.data.actor)).toEqual([byMember]);
    expect((await eventsOf(sender.key, 'suppression.removed')).map((event) => [event.data.reason, event.data.actor])).toEqual([
      ['manual', byMember],
      ['complaint', { type: 'member', id: admin.memberId }],
    ]);
  });

  it('a test key reads the list but may not change it; a sending key may not even read it', async () => {
    const sender = await createSender();
    const address = uniqueAddress('listed');
    await add(sender.key, { emails: [address] });
    const sendingKey = (await createApiKey({ accountId: sender.accountId, env: 'live', permission: 'sending' })).key;

    const read = await list(sender.testKey);
    const testAdd = await add(sender.testKey, { emails: [uniqueAddress()] });
    const testLift = await lift(sender.testKey, address);
    const sendingRead = await list(sendingKey);
    const sendingAdd = await add(sendingKey, { emails: [uniqueAddress()] });

    expect(read.body.suppressions.map((item: { email: string }) => item.email)).toEqual([address]);
    expect([testAdd.status, testAdd.body.error, testLift.status, testLift.body.error]).toEqual([403, 'FORBIDDEN', 403, 'FORBIDDEN']);
    expect([sendingRead.status, sendingAdd.status]).toEqual([403, 403]);
    expect((await list(sender.key)).body.suppressions.map((item: { email: string }) => item.email)).toEqual([address]);
  });
});
