/**
 * Issue 18's check, end to end: every event source, driven as a client and
 * SES drive it (HTTP, the signed links, the public form, SES's own event
 * shapes through the feedback handler), reaches a real receiver on
 * 127.0.0.1 through the fan-out function (the table's stream, read by
 * ./support.ts) and the webhook queue, and the receiver verifies every
 * delivery with the `standardwebhooks` package before it keeps it. Each
 * event delivered is also held to its payload example in docs/webhooks.md.
 */
import { MessageRejected } from '@aws-sdk/client-sesv2';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Webhook } from 'standardwebhooks';
import type { Receiver } from './support.ts';

const { deliverWebhook } = await import('#shared/webhooks/deliver.ts');
const { subscriptionLinks } = await import('#shared/sending/subscription-links.ts');
const { localVerifier, verifyDomain } = await import('#shared/domains/verification.ts');
const { request } = await import('../support/api.ts');
const { createSender, sesFailsFor, uniqueAddress } = await import('../sending/support.ts');
const { createForm, submit } = await import('../forms/support.ts');
const { facts, feedback, sendOne, sesEventFor } = await import('../events/support.ts');
const { expectDocumentedEvent, unmatchedExamples } = await import('../docs/event-examples.ts');
const { createBroadcast, drainBroadcastQueue, mixedAudience } = await import('../broadcasts/support.ts');
const { openEventStream, receiversPerTest, takeMessages, walk } = await import('./support.ts');
const { signedInCookie } = await import('../people/support.ts');
const { publicBase } = await import('#shared/platform/public-urls.ts');
const { putSuppression } = await import('#shared/sending/suppression-store.ts');

await openEventStream();

const receiver = receiversPerTest();
afterEach(() => {
  vi.restoreAllMocks();
});
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

interface DeliveredEvent {
  id: string;
  type: string;
  createdAt: string;
  data: Record<string, any>;
}

/**
 * A receiver as a customer writes one: every request is verified with the
 * endpoint's secret by `standardwebhooks` (401 when it does not verify),
 * then kept once per `webhook-id`, whatever order the copies arrive in.
 */
async function verifyingEndpoint({ accountId, key }: { accountId: string; key: string }) {
  // What the arrange steps recorded is fanned out now, before the endpoint exists.
  await takeMessages(accountId);
  let secret = '';
  const verified: DeliveredEvent[] = [];
  const byId = new Map<string, DeliveredEvent>();
  const target: Receiver = await receiver((received) => {
    try {
      const event = new Webhook(secret).verify(received.body, received.headers as Record<string, string>) as DeliveredEvent;
      verified.push(event);
      if (!byId.has(received.headers['webhook-id'] as string)) byId.set(received.headers['webhook-id'] as string, event);
      return 204;
    } catch {
      return 401;
    }
  });
  const created = await request('POST', '/api/webhooks', { key, body: { url: target.url, events: ['*'], description: 'end to end' } });
  expect(created.status).toBe(201);
  secret = created.body.data.secret;
  return {
    webhookId: created.body.data.id as string,
    requests: target.requests,
    verified,
    /** The events kept, oldest first. */
    unique: () => [...byId.values()].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id)),
  };
}

/** Fans out the account's new events and makes every attempt due, as the stream and the queue would. */
async function deliverAll(accountId: string): Promise<void> {
  for (const message of await takeMessages(accountId)) expect((await deliverWebhook(message, Date.now())).action).toBe('done');
}

type Endpoint = Awaited<ReturnType<typeof verifyingEndpoint>>;

/** Every request verified (none refused), and each kept event matches its documented example. */
function expectAllVerified(endpoint: Endpoint): DeliveredEvent[] {
  expect(endpoint.requests.length).toBeGreaterThan(0);
  expect(endpoint.verified).toHaveLength(endpoint.requests.length);
  for (const event of endpoint.unique()) expectDocumentedEvent(event);
  return endpoint.unique();
}

describe('a real receiver gets a signed delivery for every source', () => {
  it('a send: email.sent; SES Delivery, Open, Click and Complaint notifications: one delivery each', async () => {
    const sender = await createSender();
    const endpoint = await verifyingEndpoint(sender);
    const email = await sendOne(sender, { tracking: { opens: true, clicks: true } });
    const tracking = 'opens-clicks';

    for (const [type, extra] of [
      ['Delivery', {}],
      ['Open', { tracking }],
      ['Click', { tracking, link: 'https://example.com/offer' }],
      ['Complaint', {}],
    ] as const) {
      await feedback(sesEventFor(sender, email, type, new Date(), extra));
    }
    await deliverAll(sender.accountId);

    const events = expectAllVerified(endpoint);
    expect(events.map((event) => event.type)).toEqual(['email.sent', 'email.delivered', 'email.opened', 'email.clicked', 'email.complained']);
    for (const event of events) expect(event.data).toMatchObject(facts(email));
    expect(events[3]!.data.click).toMatchObject({ link: 'https://example.com/offer' });
  });

  it('a bounce replayed twice, in SES event shape through the feedback handler, is exactly one email.bounced delivery', async () => {
    const sender = await createSender();
    const endpoint = await verifyingEndpoint(sender);
    const email = await sendOne(sender);
    const bounce = sesEventFor(sender, email, 'Bounce');

    await feedback(bounce);
    await deliverAll(sender.accountId);
    await feedback(structuredClone(bounce));
    await feedback(structuredClone(bounce));
    await deliverAll(sender.accountId);

    const events = expectAllVerified(endpoint);
    expect(endpoint.requests).toHaveLength(2);
    expect(events.map((event) => event.type)).toEqual(['email.sent', 'email.bounced']);
    expect(events[1]!.data).toEqual({ ...facts(email), bounce: { type: 'Permanent', subType: 'General' } });
  });

  it("unsubscribes: a contact's confirmation button and one-click POST, and an address that is no contact", async () => {
    const sender = await createSender();
    const audience = (await request('POST', '/api/audiences', { key: sender.key, body: { name: 'News' } })).body.data;
    const [byButton, byOneClick, stranger] = [uniqueAddress('button'), uniqueAddress('oneclick'), uniqueAddress('stranger')];
    for (const email of [byButton, byOneClick]) {
      expect((await request('POST', '/api/contacts', { key: sender.key, body: { email, audienceId: audience.id, firstName: 'Ana' } })).status).toBe(201);
    }
    const endpoint = await verifyingEndpoint(sender);
    const link = async (email: string) => new URL((await subscriptionLinks(sender.accountId, email)).oneClickUrl).pathname;

    await request('POST', await link(byButton), { rawBody: '', headers: FORM });
    await request('POST', await link(byOneClick), { rawBody: 'List-Unsubscribe=One-Click', headers: FORM });
    await request('POST', await link(stranger), { rawBody: 'List-Unsubscribe=One-Click', headers: FORM });
    // Clicked again: nothing new.
    await request('POST', await link(stranger), { rawBody: 'List-Unsubscribe=One-Click', headers: FORM });
    await deliverAll(sender.accountId);

    const events = expectAllVerified(endpoint);
    expect(events.map((event) => [event.type, event.data.email, event.data.status])).toEqual(
      expect.arrayContaining([
        ['contact.unsubscribed', byButton, 'unsubscribed'],
        ['contact.unsubscribed', byOneClick, 'unsubscribed'],
        ['contact.unsubscribed', stranger, 'unsubscribed'],
      ]),
    );
    expect(events).toHaveLength(3);
    expect(events.find((event) => event.data.email === stranger)!.data).toEqual({ contactId: null, email: stranger, audienceId: null, status: 'unsubscribed' });
  });

  it('a form submission: form.submitted and the contact.created of the submitter', async () => {
    const sender = await createSender();
    const audience = (await request('POST', '/api/audiences', { key: sender.key, body: { name: 'Leads' } })).body.data;
    const form = await createForm(sender.key, { audienceId: audience.id });
    const endpoint = await verifyingEndpoint(sender);

    const submitted = await submit(form.id, { email: 'lead@example.org', firstName: 'Lea' });
    await deliverAll(sender.accountId);

    const events = expectAllVerified(endpoint);
    expect(events.map((event) => event.type).sort()).toEqual(['contact.created', 'form.submitted']);
    expect(events.find((event) => event.type === 'form.submitted')!.data).toEqual({
      formId: form.id,
      submissionId: submitted.body.submissionId,
      data: { email: 'lead@example.org', firstName: 'Lea' },
    });
  });

  it('contact create, update and delete over the API, and a bulk import', async () => {
    const sender = await createSender();
    const audience = (await request('POST', '/api/audiences', { key: sender.key, body: { name: 'Customers' } })).body.data;
    const endpoint = await verifyingEndpoint(sender);

    const contact = (await request('POST', '/api/contacts', { key: sender.key, body: { email: 'ana@example.org', audienceId: audience.id, firstName: 'Ana' } }))
      .body.data;
    await request('PATCH', `/api/contacts/${contact.id}`, { key: sender.key, body: { firstName: 'Anna' } });
    await request('DELETE', `/api/contacts/${contact.id}`, { key: sender.key });
    await request('POST', '/api/contacts/bulk', {
      key: sender.key,
      body: { audienceId: audience.id, contacts: [{ email: 'bo@example.org', firstName: 'Bo' }] },
    });
    await deliverAll(sender.accountId);

    const events = expectAllVerified(endpoint);
    expect(events.map((event) => [event.type, event.data.email])).toEqual([
      ['contact.created', 'ana@example.org'],
      ['contact.updated', 'ana@example.org'],
      ['contact.deleted', 'ana@example.org'],
      ['contact.created', 'bo@example.org'],
    ]);
    expect(events[1]!.data).toMatchObject({ contactId: contact.id, firstName: 'Anna' });
  });
});

describe('deduplication by webhook-id', () => {
  it('a delivery made again (a manual retry) carries the same webhook-id and body, in whatever order the copies arrive', async () => {
    const sender = await createSender();
    const audience = (await request('POST', '/api/audiences', { key: sender.key, body: { name: 'News' } })).body.data;
    const endpoint = await verifyingEndpoint(sender);
    for (const email of ['one@example.org', 'two@example.org']) {
      await request('POST', '/api/contacts', { key: sender.key, body: { email, audienceId: audience.id, firstName: 'Ana' } });
    }
    const first = await takeMessages(sender.accountId);
    const deliveries = (await request('GET', `/api/webhooks/${endpoint.webhookId}/deliveries`, { key: sender.key })).body.deliveries;

    // The second event first, then the first, then both again by manual retry, newest first.
    for (const message of [...first].reverse()) await deliverWebhook(message, Date.now());
    for (const delivery of deliveries) {
      const retried = await request('POST', `/api/webhooks/${endpoint.webhookId}/deliveries/${delivery.id}/retry`, { key: sender.key });
      expect(retried.status).toBe(200);
    }
    await deliverAll(sender.accountId);

    expect(endpoint.requests).toHaveLength(4);
    const ids = endpoint.requests.map((received) => received.headers['webhook-id']);
    expect(new Set(ids).size).toBe(2);
    for (const id of new Set(ids)) {
      const copies = endpoint.requests.filter((received) => received.headers['webhook-id'] === id);
      expect(copies.map((copy) => JSON.parse(copy.body).id)).toEqual([id, id]);
      expect(copies[0]!.body).toBe(copies[1]!.body);
    }
    expect(
      expectAllVerified(endpoint)
        .map((event) => event.data.email)
        .sort(),
    ).toEqual(['one@example.org', 'two@example.org']);
  });
});

describe('the rest of the catalogue', () => {
  it('SES DeliveryDelay and Reject notifications, and a message SES refuses (email.failed)', async () => {
    const sender = await createSender();
    const endpoint = await verifyingEndpoint(sender);
    const refused = uniqueAddress('refused');
    sesFailsFor(refused, () => new MessageRejected({ message: 'Email address is not verified.', $metadata: {} }));
    const email = await sendOne(sender);

    await request('POST', '/api/email/send', { key: sender.key, body: { from: sender.from, recipients: [refused], subject: 'Hello', content: '<p>Hi</p>' } });
    await feedback(sesEventFor(sender, email, 'DeliveryDelay'));
    await feedback(sesEventFor(sender, email, 'Reject'));
    await deliverAll(sender.accountId);

    expect(
      expectAllVerified(endpoint)
        .map((event) => event.type)
        .sort(),
    ).toEqual(['email.delivery_delayed', 'email.failed', 'email.rejected', 'email.sent']);
  });

  it("a broadcast: each message's email.sent names it, then broadcast.sent with its counts", async () => {
    const sender = await createSender();
    const { audienceId } = await mixedAudience(sender, 2);
    const broadcast = await createBroadcast(sender, { audienceId, content: '<p>Hi {{firstName}}</p><p><a href="{{unsubscribeUrl}}">Leave</a></p>' });
    const endpoint = await verifyingEndpoint(sender);

    expect((await request('POST', `/api/broadcasts/${broadcast.id}/send`, { key: sender.key, body: {} })).status).toBe(202);
    await drainBroadcastQueue();
    await deliverAll(sender.accountId);

    const events = expectAllVerified(endpoint);
    // The messages' events carry the time their batch started: not necessarily before broadcast.sent.
    expect(events.map((event) => [event.type, event.data.broadcastId]).sort()).toEqual([
      ['broadcast.sent', broadcast.id],
      ['email.sent', broadcast.id],
      ['email.sent', broadcast.id],
    ]);
    expect(events.find((event) => event.type === 'broadcast.sent')!.data).toMatchObject({ recipients: 2, sent: 2, suppressed: 0, failed: 0 });
  });

  it('an endpoint failing for a day is disabled: webhook.disabled reaches the others', async () => {
    const sender = await createSender();
    const endpoint = await verifyingEndpoint(sender);
    const dead = await receiver(() => 500);
    await request('POST', '/api/webhooks', { key: sender.key, body: { url: dead.url, events: ['contact.created'] } });
    const audience = (await request('POST', '/api/audiences', { key: sender.key, body: { name: 'News' } })).body.data;
    await request('POST', '/api/contacts', { key: sender.key, body: { email: 'ana@example.org', audienceId: audience.id, firstName: 'Ana' } });

    const messages = await takeMessages(sender.accountId);
    for (const message of messages) await walk(message);
    await deliverAll(sender.accountId);

    expect(expectAllVerified(endpoint).map((event) => event.type)).toEqual(['contact.created', 'webhook.disabled']);
  });

  it('the team and signing in: the operator adding an admin, their session.created, then member.added, member.updated and member.removed naming them', async () => {
    const sender = await createSender();
    const endpoint = await verifyingEndpoint(sender);
    const admin = await signedInCookie(sender.accountId);
    const asAdmin = { cookie: admin.cookie, origin: new URL(publicBase()).origin };

    const added = (await request('POST', '/api/team', { headers: asAdmin, body: { email: uniqueAddress('grace') } })).body.data;
    await request('PATCH', `/api/team/${added.id}`, { headers: asAdmin, body: { role: 'admin' } });
    await request('DELETE', `/api/team/${added.id}`, { headers: asAdmin });
    await deliverAll(sender.accountId);

    const events = expectAllVerified(endpoint);
    expect(events.map((event) => [event.type, event.data.memberId, (event.data.actor as { id: string }).id])).toEqual([
      ['member.added', admin.memberId, 'test'],
      ['session.created', admin.memberId, admin.memberId],
      ['member.added', added.id, admin.memberId],
      ['member.updated', added.id, admin.memberId],
      ['member.removed', added.id, admin.memberId],
    ]);
  });

  it('audit events: a key made, changed and revoked, a domain added, verified by the operator and deleted; none carries a secret', async () => {
    const sender = await createSender();
    const endpoint = await verifyingEndpoint(sender);
    const created = async (path: string, body: object) => (await request('POST', path, { key: sender.key, body })).body.data;
    const kept = await created('/api/api-keys', { name: 'Production server' });
    const gone = await created('/api/api-keys', { name: 'Old server' });
    const domain = await created('/api/domains', { domain: `a${crypto.randomUUID().slice(0, 8)}.example.com` });

    await request('PATCH', `/api/api-keys/${kept.id}`, { key: sender.key, body: { name: 'Old server', disabled: true } });
    await request('DELETE', `/api/api-keys/${gone.id}`, { key: sender.key });
    await verifyDomain(sender.accountId, domain.domain, localVerifier);
    await request('DELETE', `/api/domains/${domain.id}`, { key: sender.key });
    await deliverAll(sender.accountId);

    const events = expectAllVerified(endpoint);
    const byKey = { type: 'key', id: sender.keyId };
    expect(events.map((event) => [event.type, event.data.actor])).toEqual([
      ['api_key.created', byKey],
      ['api_key.created', byKey],
      ['domain.created', byKey],
      ['api_key.updated', byKey],
      ['api_key.revoked', byKey],
      ['domain.verified', { type: 'operator', id: 'admin-cli' }],
      ['domain.deleted', byKey],
    ]);
    expect(events[3]!.data).toMatchObject({ apiKeyId: kept.id, name: 'Old server', disabled: true, changes: ['name', 'disabled'] });
    for (const secret of [kept.key, gone.key, kept.key.slice(-4)]) expect(JSON.stringify(events)).not.toContain(secret);
  });

  it('the suppression list: an address added by a member, then lifted (a complaint, confirmed) by a key', async () => {
    const sender = await createSender();
    const endpoint = await verifyingEndpoint(sender);
    const member = await signedInCookie(sender.accountId);
    const address = uniqueAddress('suppressed');

    await request('POST', '/api/suppressions', { headers: { cookie: member.cookie, origin: new URL(publicBase()).origin }, body: { emails: [address] } });
    await request('DELETE', `/api/suppressions/${encodeURIComponent(address)}`, { key: sender.key });
    const complained = uniqueAddress('complained');
    await putSuppression(sender.accountId, complained, 'complained', new Date());
    await request('DELETE', `/api/suppressions/${encodeURIComponent(complained)}?confirm=complaint`, { key: sender.key });
    await deliverAll(sender.accountId);

    const events = expectAllVerified(endpoint);
    const byKey = { type: 'key', id: sender.keyId };
    expect(events.filter((event) => event.type.startsWith('suppression.')).map((event) => [event.type, event.data])).toEqual([
      ['suppression.added', { email: address, reason: 'manual', actor: { type: 'member', id: member.memberId } }],
      ['suppression.removed', { email: address, reason: 'manual', actor: byKey }],
      ['suppression.removed', { email: complained, reason: 'complaint', actor: byKey }],
    ]);
  });

  // Last in the file: the tests above delivered one event of each documented example.
  it('every payload example of docs/webhooks.md matched an event a receiver got', () => {
    expect(unmatchedExamples()).toEqual([]);
  });
});
