/**
 * The suppression list shows, after its own entries, the contacts whose own
 * status is bounced or complained (SES feedback records a contact's bounce on
 * the contact, not on the list), and lifting the address lifts those too
 * (docs/suppressions.md, "What is on it").
 */
import { describe, expect, it } from 'vitest';
import { changeRole } from '#shared/accounts/members.ts';
import { request } from '../support/api.ts';
import { addContact, createSender, sendPlain, suppressedFailure, uniqueAddress } from '../sending/support.ts';
import { feedback, sendOne, sesEventFor } from '../events/support.ts';
import { asPerson, signedInCookie } from '../people/support.ts';

const list = (key: string, query = '') => request('GET', `/api/suppressions${query}`, { key });
const lift = (key: string, email: string, query = '') => request('DELETE', `/api/suppressions/${encodeURIComponent(email)}${query}`, { key });
const contact = async (key: string, id: string) => (await request('GET', `/api/contacts/${id}`, { key })).body.data;

/** A contact that SES reported bounced: sent to, then its permanent bounce fed through the feedback handler. */
async function bouncedContact(sender: Awaited<ReturnType<typeof createSender>>, email: string): Promise<string> {
  const id = await addContact(sender.key, email);
  const sent = await sendOne(sender, { recipients: [email] });
  await feedback(sesEventFor(sender, sent, 'Bounce'));
  return id;
}

describe('contacts on the suppression list', () => {
  it("lists a contact's own bounce or complaint after the list's entries, with its contact as the source; search, reason and cursor apply", async () => {
    const sender = await createSender();
    const [manual, bounced, complained, subscribed, unsubscribed] = ['a-manual', 'b-bounced', 'c-complained', 'd-subscribed', 'e-unsub'].map((name) =>
      uniqueAddress(name),
    ) as [string, string, string, string, string];
    await request('POST', '/api/suppressions', { key: sender.key, body: { emails: [manual] } });
    const bouncedId = await bouncedContact(sender, bounced);
    // Set by the API rather than by SES: the same status, the same refusal.
    const complainedId = await addContact(sender.key, complained, 'complained');
    await addContact(sender.key, subscribed);
    await addContact(sender.key, unsubscribed, 'unsubscribed');
    const [bouncedContactNow, complainedContactNow] = await Promise.all([contact(sender.key, bouncedId), contact(sender.key, complainedId)]);

    const all = await list(sender.key);
    const bounces = await list(sender.key, '?reason=bounce');
    const searched = await list(sender.key, `?search=${encodeURIComponent(complained.slice(0, 14).toUpperCase())}`);
    const manualOnly = await list(sender.key, '?reason=manual');
    const walked = [];
    for (let cursor = '', pages = 0; pages < 5; pages++) {
      const page = await list(sender.key, `?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      walked.push(...page.body.suppressions.map((item: { email: string }) => item.email));
      if (!page.body.pagination.nextCursor) break;
      cursor = page.body.pagination.nextCursor;
    }

    expect(all.status).toBe(200);
    expect(all.body.suppressions).toEqual([
      { email: manual, reason: 'manual', createdAt: expect.any(String), source: { type: 'key', id: sender.keyId } },
      {
        email: bounced,
        reason: 'bounce',
        createdAt: bouncedContactNow.updatedAt,
        source: { type: 'contact', id: bouncedId, audienceId: bouncedContactNow.audienceId },
      },
      {
        email: complained,
        reason: 'complaint',
        createdAt: complainedContactNow.updatedAt,
        source: { type: 'contact', id: complainedId, audienceId: complainedContactNow.audienceId },
      },
    ]);
    expect(bounces.body.suppressions.map((item: { email: string }) => item.email)).toEqual([bounced]);
    expect(searched.body.suppressions.map((item: { email: string }) => item.email)).toEqual([complained]);
    expect(manualOnly.body.suppressions.map((item: { email: string }) => item.email)).toEqual([manual]);
    expect(walked).toEqual([manual, bounced, complained]);
  });

  it("lifting the address makes its bounced contact subscribed and sends reach it again; another account's lift finds nothing", async () => {
    const [sender, stranger] = await Promise.all([createSender(), createSender()]);
    const bounced = uniqueAddress('bounced');
    const contactId = await bouncedContact(sender, bounced);
    expect((await sendPlain(sender, [bounced])).body.failedEmails).toEqual([suppressedFailure(bounced)]);

    const theirs = await lift(stranger.key, bounced);
    const lifted = await lift(sender.key, bounced.toUpperCase());
    const again = await lift(sender.key, bounced);
    const send = await sendPlain(sender, [bounced]);

    expect([theirs.status, theirs.body.error]).toEqual([404, 'SUPPRESSION_NOT_FOUND']);
    expect(lifted.status).toBe(200);
    expect([again.status, again.body.error]).toEqual([404, 'SUPPRESSION_NOT_FOUND']);
    expect((await contact(sender.key, contactId)).status).toBe('subscribed');
    expect([send.status, send.body.failedEmails]).toEqual([200, []]);
    expect((await list(sender.key)).body.suppressions).toEqual([]);
    const removed = (await request('GET', '/api/events?type=suppression.removed', { key: sender.key })).body.events;
    expect(removed.map((event: { data: unknown }) => event.data)).toEqual([{ email: bounced, reason: 'bounce', actor: { type: 'key', id: sender.keyId } }]);
  });

  it("a contact's complaint is lifted only by an admin with confirm=complaint, as a listed one", async () => {
    const sender = await createSender();
    const complained = uniqueAddress('complained');
    const contactId = await addContact(sender.key, complained);
    const sent = await sendOne(sender, { recipients: [complained] });
    await feedback(sesEventFor(sender, sent, 'Complaint'));
    const admin = await signedInCookie(sender.accountId);
    const member = await signedInCookie(sender.accountId);
    await changeRole(sender.accountId, member.memberId, 'member', { type: 'operator', id: 'test' }, new Date());
    const path = `/api/suppressions/${encodeURIComponent(complained)}`;

    const unconfirmed = await asPerson(admin, 'DELETE', path);
    const byMember = await asPerson(member, 'DELETE', `${path}?confirm=complaint`);
    const stillComplained = (await contact(sender.key, contactId)).status;
    const byAdmin = await asPerson(admin, 'DELETE', `${path}?confirm=complaint`);

    expect([unconfirmed.status, unconfirmed.body.error, unconfirmed.body.field]).toEqual([409, 'COMPLAINT_CONFIRMATION_REQUIRED', 'confirm']);
    expect([byMember.status, byMember.body.error]).toEqual([403, 'FORBIDDEN']);
    expect(stillComplained).toBe('complained');
    expect(byAdmin.status).toBe(200);
    expect((await contact(sender.key, contactId)).status).toBe('subscribed');
  });
});
