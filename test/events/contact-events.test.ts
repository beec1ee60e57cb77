/**
 * The `contact.*` and `form.submitted` producers: each change over HTTP (the
 * API, the unsubscribe link and one-click POST, the preferences page, a form
 * submission) records exactly one event, in the change's own transaction.
 */
import { describe, expect, it } from 'vitest';
import { putSuppression } from '#shared/sending/suppression-store.ts';
import { listEvents } from '#shared/events/service.ts';
import { subscriptionLinks } from '#shared/sending/subscription-links.ts';
import { createTestAccount } from '../support/accounts.ts';
import { request } from '../support/api.ts';
import { createForm, submit } from '../forms/support.ts';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/** The account's events, oldest first. */
async function eventsOf(accountId: string) {
  return (await listEvents(accountId, { limit: 100 }, Date.now())).events.reverse();
}

async function accountWithContact(email = 'ana@example.com') {
  const account = await createTestAccount();
  const audience = (await request('POST', '/api/audiences', { key: account.key, body: { name: 'News' } })).body.data;
  const created = await request('POST', '/api/contacts', { key: account.key, body: { email, audienceId: audience.id, firstName: 'Ana' } });
  expect(created.status).toBe(201);
  return { ...account, audienceId: audience.id as string, contact: created.body.data };
}

describe('contact events', () => {
  it('create, update and delete over the API each record one event with the contact', async () => {
    const { accountId, key, contact } = await accountWithContact();

    await request('PATCH', `/api/contacts/${contact.id}`, { key, body: { lastName: 'Lima' } });
    await request('DELETE', `/api/contacts/${contact.id}`, { key });

    const events = await eventsOf(accountId);
    expect(events.map((event) => event.type)).toEqual(['contact.created', 'contact.updated', 'contact.deleted']);
    expect(events[0]!.data).toMatchObject({ contactId: contact.id, email: 'ana@example.com', firstName: 'Ana', lastName: null, status: 'subscribed' });
    expect(events[1]!.data).toMatchObject({ contactId: contact.id, lastName: 'Lima' });
    expect(events[2]!.data).toMatchObject({ contactId: contact.id, lastName: 'Lima' });
  });

  it('an update to the values the contact already has records nothing', async () => {
    const { accountId, key, contact } = await accountWithContact();

    const response = await request('PATCH', `/api/contacts/${contact.id}`, { key, body: { firstName: 'Ana', status: 'subscribed' } });

    expect(response.status).toBe(200);
    expect((await eventsOf(accountId)).map((event) => event.type)).toEqual(['contact.created']);
  });

  it('a refused create (the address is there already) records nothing', async () => {
    const { accountId, key, audienceId } = await accountWithContact();

    const response = await request('POST', '/api/contacts', { key, body: { email: 'ana@example.com', audienceId } });

    expect(response.status).toBe(409);
    expect((await eventsOf(accountId)).map((event) => event.type)).toEqual(['contact.created']);
  });
});

describe('contact.unsubscribed', () => {
  it('the one-click POST records one contact.unsubscribed; a repeat records nothing', async () => {
    const { accountId, contact } = await accountWithContact();
    const { oneClickUrl } = await subscriptionLinks(accountId, 'ana@example.com');

    await request('POST', new URL(oneClickUrl).pathname, { rawBody: 'List-Unsubscribe=One-Click', headers: FORM });
    await request('POST', new URL(oneClickUrl).pathname, { rawBody: 'List-Unsubscribe=One-Click', headers: FORM });

    const events = await eventsOf(accountId);
    expect(events.map((event) => event.type)).toEqual(['contact.created', 'contact.unsubscribed']);
    expect(events[1]!.data).toMatchObject({ contactId: contact.id, email: 'ana@example.com', status: 'unsubscribed' });
  });

  it('leaving on the preferences page records contact.unsubscribed, rejoining contact.updated', async () => {
    const { accountId, audienceId } = await accountWithContact();
    const preferences = new URL((await subscriptionLinks(accountId, 'ana@example.com')).preferencesUrl).pathname;

    await request('POST', preferences, { rawBody: `audienceId=${audienceId}&status=unsubscribed`, headers: FORM });
    await request('POST', preferences, { rawBody: `audienceId=${audienceId}&status=subscribed`, headers: FORM });

    const events = await eventsOf(accountId);
    expect(events.map((event) => [event.type, event.data.status])).toEqual([
      ['contact.created', 'subscribed'],
      ['contact.unsubscribed', 'unsubscribed'],
      ['contact.updated', 'subscribed'],
    ]);
  });
});

describe('contact.unsubscribed of an address that is no contact', () => {
  /** The account's events over GET /api/events, oldest first. */
  async function listed(key: string) {
    const response = await request('GET', '/api/events?limit=100', { key });
    expect(response.status).toBe(200);
    return (response.body.events as { type: string; data: Record<string, unknown> }[]).reverse();
  }

  it('the one-click POST records one contact.unsubscribed with the address and no contact; a second click records nothing', async () => {
    const { accountId, key } = await createTestAccount();
    const { oneClickUrl } = await subscriptionLinks(accountId, 'stranger@example.org');

    const first = await request('POST', new URL(oneClickUrl).pathname, { rawBody: 'List-Unsubscribe=One-Click', headers: FORM });
    const second = await request('POST', new URL(oneClickUrl).pathname, { rawBody: 'List-Unsubscribe=One-Click', headers: FORM });

    expect([first.status, second.status]).toEqual([200, 200]);
    expect((await listed(key)).map((event) => [event.type, event.data])).toEqual([
      ['contact.unsubscribed', { contactId: null, email: 'stranger@example.org', audienceId: null, status: 'unsubscribed' }],
    ]);
  });

  it('the preferences page records each change: leaving, and leaving again after rejoining, but not the same choice twice', async () => {
    const { accountId, key } = await createTestAccount();
    const preferences = new URL((await subscriptionLinks(accountId, 'stranger@example.org')).preferencesUrl).pathname;

    for (const status of ['unsubscribed', 'unsubscribed', 'subscribed', 'unsubscribed']) {
      expect((await request('POST', preferences, { rawBody: `status=${status}`, headers: FORM })).status).toBe(200);
    }

    expect((await listed(key)).map((event) => [event.type, event.data.email])).toEqual([
      ['contact.unsubscribed', 'stranger@example.org'],
      ['contact.unsubscribed', 'stranger@example.org'],
    ]);
  });

  it('an address suppressed by a bounce records nothing: the unsubscribe changed nothing', async () => {
    const { accountId, key } = await createTestAccount();
    await putSuppression(accountId, 'bounced@example.org', 'bounced', new Date());
    const { oneClickUrl } = await subscriptionLinks(accountId, 'bounced@example.org');

    await request('POST', new URL(oneClickUrl).pathname, { rawBody: 'List-Unsubscribe=One-Click', headers: FORM });

    expect(await listed(key)).toEqual([]);
  });
});

describe('form.submitted', () => {
  it('a submission records form.submitted with its values, and the contact it adds records contact.created', async () => {
    const { accountId, key, audienceId } = await accountWithContact('someone@example.com');
    const form = await createForm(key, { audienceId });

    const response = await submit(form.id, { email: 'new@example.org', firstName: 'Bo' });

    // Both are made in the same millisecond: their order is not defined.
    const events = (await eventsOf(accountId)).slice(1);
    expect(response.status).toBe(200);
    expect(events.map((event) => event.type).sort()).toEqual(['contact.created', 'form.submitted']);
    expect(events.find((event) => event.type === 'form.submitted')!.data).toEqual({
      formId: form.id,
      submissionId: response.body.submissionId,
      data: { email: 'new@example.org', firstName: 'Bo' },
    });
    expect(events.find((event) => event.type === 'contact.created')!.data).toMatchObject({ email: 'new@example.org', firstName: 'Bo', audienceId });
  });

  it('a form that keeps no responses records the submission without its values', async () => {
    const { accountId, key } = await createTestAccount();
    const form = await createForm(key, { settings: { storeResponses: false } });

    const response = await submit(form.id, { email: 'new@example.org' });

    expect((await eventsOf(accountId)).map((event) => event.data)).toEqual([{ formId: form.id, submissionId: response.body.submissionId }]);
  });
});
