import { describe, expect, it } from 'vitest';
import { createTestAccount } from '../support/accounts.ts';
import { request } from '../support/api.ts';
import { apiClient } from '../support/client.ts';
import { accountWithAudience, expectCreated, expectUpdatesRefused } from '../support/arrange.ts';

const setup = () => accountWithAudience('Main');

describe('create contact', () => {
  it('stores the email trimmed and lower-cased, defaults status to subscribed, and counts it', async () => {
    const { key, audienceId } = await setup();

    const response = await request('POST', '/api/contacts', {
      key,
      body: {
        email: '  Ada@Example.COM ',
        audienceId,
        firstName: 'Ada',
        lastName: 'Lovelace',
        phone: '+44 20 7946 0000',
        tags: ['vip', 'vip', 'beta'],
        customFields: { plan: 'pro', seats: 3, trial: false },
      },
    });

    expectCreated(response, {
      id: expect.stringMatching(/^con_[0-9A-Za-z]{20}$/),
      email: 'ada@example.com',
      audienceId,
      firstName: 'Ada',
      lastName: 'Lovelace',
      phone: '+44 20 7946 0000',
      status: 'subscribed',
      tags: ['vip', 'beta'],
      customFields: { plan: 'pro', seats: 3, trial: false },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      lastActivityAt: expect.any(String),
    });
    const audience = await request('GET', `/api/audiences/${audienceId}`, { key });
    expect(audience.body.data.count).toBe(1);
  });

  it('accepts every creatable status and refuses complained', async () => {
    const { key, audienceId } = await setup();

    for (const status of ['subscribed', 'unsubscribed', 'pending', 'bounced']) {
      const response = await request('POST', '/api/contacts', { key, body: { email: `${status}@example.com`, audienceId, status } });
      expect(response.body.data.status).toBe(status);
    }
    const complained = await request('POST', '/api/contacts', { key, body: { email: 'c@example.com', audienceId, status: 'complained' } });

    expect(complained.status).toBe(422);
    expect(complained.body).toMatchObject({ error: 'VALIDATION_ERROR', field: 'status' });
  });

  it('answers each bad input with its code and field', async () => {
    const { key, audienceId } = await setup();
    const cases: [unknown, number, string, string][] = [
      [{ audienceId }, 400, 'MISSING_REQUIRED_FIELD', 'email'],
      [{ email: 'a@example.com' }, 400, 'MISSING_REQUIRED_FIELD', 'audienceId'],
      [{ email: 'not-an-email', audienceId }, 422, 'INVALID_EMAIL', 'email'],
      [{ email: 'a@', audienceId }, 422, 'INVALID_EMAIL', 'email'],
      [{ email: 42, audienceId }, 422, 'VALIDATION_ERROR', 'email'],
      [{ email: 'a@example.com', audienceId, tags: 'vip' }, 422, 'VALIDATION_ERROR', 'tags'],
      [{ email: 'a@example.com', audienceId, tags: ['ok', 7] }, 422, 'VALIDATION_ERROR', 'tags[1]'],
      [{ email: 'a@example.com', audienceId, customFields: { nested: { a: 1 } } }, 422, 'VALIDATION_ERROR', 'customFields.nested'],
      [{ email: 'a@example.com', audienceId, phone: 'call me' }, 422, 'VALIDATION_ERROR', 'phone'],
      [{ email: 'a@example.com', audienceId, firstName: 'x'.repeat(257) }, 422, 'VALIDATION_ERROR', 'firstName'],
      [{ email: 'a@example.com', audienceId, nickname: 'A' }, 422, 'VALIDATION_ERROR', 'nickname'],
    ];

    for (const [body, status, error, field] of cases) {
      const response = await request('POST', '/api/contacts', { key, body });
      expect({ body, status: response.status, error: response.body.error, field: response.body.field }).toEqual({ body, status, error, field });
      expect(response.body.success).toBe(false);
      expect(typeof response.body.message).toBe('string');
    }
    expect((await request('GET', `/api/audiences/${audienceId}`, { key })).body.data.count).toBe(0);
  });

  it('refuses a second contact with the same email in the audience, whatever its case', async () => {
    const { key, audienceId } = await setup();
    const other = (await request('POST', '/api/audiences', { key, body: { name: 'Other' } })).body.data.id;
    await request('POST', '/api/contacts', { key, body: { email: 'dup@example.com', audienceId } });

    const again = await request('POST', '/api/contacts', { key, body: { email: 'DUP@example.com ', audienceId } });
    const elsewhere = await request('POST', '/api/contacts', { key, body: { email: 'dup@example.com', audienceId: other } });

    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ success: false, error: 'CONTACT_EXISTS', field: 'email' });
    expect(elsewhere.status).toBe(201);
    expect((await request('GET', `/api/audiences/${audienceId}`, { key })).body.data.count).toBe(1);
  });

  it('makes exactly one contact from 100 concurrent creates of the same email', async () => {
    const { key, audienceId } = await setup();

    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, index) =>
        request('POST', '/api/contacts', { key, body: { email: index % 2 ? 'race@example.com' : 'RACE@example.com', audienceId } }),
      ),
    );

    const statuses = answers.map((answer) => answer.status);
    expect(answers.filter((answer) => answer.status !== 201 && answer.status !== 409).map((answer) => answer.body)).toEqual([]);
    expect(statuses.filter((status) => status === 201)).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(99);
    const stats = await request('GET', `/api/audiences/${audienceId}/stats`, { key });
    expect(stats.body.data).toMatchObject({ total: 1, subscribed: 1 });
    expect((await request('GET', `/api/contacts?audienceId=${audienceId}`, { key })).body.contacts).toHaveLength(1);
  });

  it('needs an existing audience', async () => {
    const { key } = await setup();

    const unknown = await request('POST', '/api/contacts', { key, body: { email: 'a@example.com', audienceId: 'aud_00000000000000000000' } });

    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error: 'AUDIENCE_NOT_FOUND' });
  });
});

describe('get contact', () => {
  it('gets by id with lastActivityAt, and by email within an audience', async () => {
    const { key, audienceId } = await setup();
    const api = await apiClient(key);
    const created = (await api.POST('/api/contacts', { body: { email: 'grace@example.com', audienceId } })).data!.data;

    const byId = await api.GET('/api/contacts/{id}', { params: { path: { id: created.id } } });
    const byEmail = await api.GET('/api/contacts/email/{email}', { params: { path: { email: 'Grace@Example.com' }, query: { audienceId } } });
    const noAudience = await api.GET('/api/contacts/email/{email}', { params: { path: { email: 'grace@example.com' } } as never });
    const wrongAudience = await api.GET('/api/contacts/email/{email}', {
      params: { path: { email: 'grace@example.com' }, query: { audienceId: 'aud_00000000000000000000' } },
    });

    expect(byId.data).toEqual({ success: true, data: created });
    expect(byId.data!.data.lastActivityAt).toBe(created.createdAt);
    expect(byEmail.data).toEqual({ success: true, data: created });
    expect(noAudience.response.status).toBe(400);
    expect(noAudience.error).toMatchObject({ error: 'MISSING_REQUIRED_FIELD', field: 'audienceId' });
    expect(wrongAudience.response.status).toBe(404);
    expect(wrongAudience.error).toMatchObject({ error: 'CONTACT_NOT_FOUND' });
  });

  it("hides other accounts' contacts behind the same 404", async () => {
    const owner = await setup();
    const stranger = await createTestAccount();
    const created = (await request('POST', '/api/contacts', { key: owner.key, body: { email: 'mine@example.com', audienceId: owner.audienceId } })).body.data;

    const answers = await Promise.all([
      request('GET', `/api/contacts/${created.id}`, { key: stranger.key }),
      request('PATCH', `/api/contacts/${created.id}`, { key: stranger.key, body: { firstName: 'x' } }),
      request('DELETE', `/api/contacts/${created.id}`, { key: stranger.key }),
      request('GET', `/api/contacts/email/mine@example.com?audienceId=${owner.audienceId}`, { key: stranger.key }),
      request('GET', '/api/contacts/con_00000000000000000000', { key: owner.key }),
      request('GET', '/api/contacts/garbage', { key: owner.key }),
    ]);

    for (const answer of answers) {
      expect(answer.status).toBe(404);
      expect(answer.body).toEqual({ success: false, error: 'CONTACT_NOT_FOUND', message: 'Contact not found' });
    }
    const strangerList = await request('GET', '/api/contacts', { key: stranger.key });
    expect(strangerList.body.contacts).toEqual([]);
    expect(strangerList.body.pagination.total).toBe(0);
    const foreignAudience = await request('GET', `/api/contacts?audienceId=${owner.audienceId}`, { key: stranger.key });
    expect(foreignAudience.body).toMatchObject({ error: 'AUDIENCE_NOT_FOUND' });
    expect((await request('GET', `/api/contacts/${created.id}`, { key: owner.key })).body.data.firstName).toBeNull();
  });
});

describe('update contact', () => {
  it('changes only the given fields, merges custom fields and replaces tags', async () => {
    const { key, audienceId } = await setup();
    const api = await apiClient(key);
    const created = (
      await api.POST('/api/contacts', {
        body: { email: 'u@example.com', audienceId, firstName: 'Una', lastName: 'Smith', tags: ['a', 'b'], customFields: { plan: 'free', city: 'Oslo' } },
      })
    ).data!.data;
    const byId = { params: { path: { id: created.id } } };

    const { response, data } = await api.PATCH('/api/contacts/{id}', {
      ...byId,
      body: { lastName: null, tags: ['c'], customFields: { plan: 'pro', city: null, seats: 2 } },
    });

    expect(response.status).toBe(200);
    expect(data!.data).toEqual({
      ...created,
      lastName: null,
      tags: ['c'],
      customFields: { plan: 'pro', seats: 2 },
      updatedAt: expect.any(String),
    });
    expect(data!.data.updatedAt >= created.updatedAt).toBe(true);
    expect((await api.GET('/api/contacts/{id}', byId)).data!.data).toEqual(data!.data);
  });

  it('moves the status counters and accepts complained', async () => {
    const { key, audienceId } = await setup();
    const created = (await request('POST', '/api/contacts', { key, body: { email: 's@example.com', audienceId } })).body.data;

    await request('PATCH', `/api/contacts/${created.id}`, { key, body: { status: 'unsubscribed' } });
    const complained = await request('PATCH', `/api/contacts/${created.id}`, { key, body: { status: 'complained' } });

    expect(complained.body.data.status).toBe('complained');
    expect(complained.body.data.lastActivityAt >= created.lastActivityAt).toBe(true);
    const stats = (await request('GET', `/api/audiences/${audienceId}/stats`, { key })).body.data;
    expect(stats).toMatchObject({ total: 1, subscribed: 0, unsubscribed: 0, complained: 1 });
  });

  it('refuses to change email or audienceId, and bad values', async () => {
    const { key, audienceId } = await setup();
    const created = (await request('POST', '/api/contacts', { key, body: { email: 'fixed@example.com', audienceId } })).body.data;

    await expectUpdatesRefused(key, `/api/contacts/${created.id}`, created, [
      [{ email: 'other@example.com' }, 422, 'VALIDATION_ERROR', 'email'],
      [{ audienceId: 'aud_00000000000000000000' }, 422, 'VALIDATION_ERROR', 'audienceId'],
      [{ status: 'gone' }, 422, 'VALIDATION_ERROR', 'status'],
    ]);
  });

  it('keeps counters exact under concurrent status changes', async () => {
    const { key, audienceId } = await setup();
    const created = (await request('POST', '/api/contacts', { key, body: { email: 'flip@example.com', audienceId } })).body.data;
    const statuses = ['unsubscribed', 'pending', 'bounced', 'subscribed', 'complained', 'pending', 'unsubscribed', 'subscribed'];

    const answers = await Promise.all(statuses.map((status) => request('PATCH', `/api/contacts/${created.id}`, { key, body: { status } })));

    expect(answers.every((answer) => answer.status === 200 || answer.body.error === 'CONFLICT')).toBe(true);
    const final = (await request('GET', `/api/contacts/${created.id}`, { key })).body.data.status;
    const stats = (await request('GET', `/api/audiences/${audienceId}/stats`, { key })).body.data;
    expect(stats.total).toBe(1);
    expect(stats[final]).toBe(1);
    expect(stats.subscribed + stats.unsubscribed + stats.pending + stats.bounced + stats.complained).toBe(1);
  });
});

describe('delete contact', () => {
  it('deletes permanently, frees the email and updates the counters', async () => {
    const { key, audienceId } = await setup();
    const api = await apiClient(key);
    const created = (await api.POST('/api/contacts', { body: { email: 'bye@example.com', audienceId, status: 'pending' } })).data!.data;
    const byId = { params: { path: { id: created.id } } };

    const removed = await api.DELETE('/api/contacts/{id}', byId);
    const again = await api.DELETE('/api/contacts/{id}', byId);
    const recreated = await api.POST('/api/contacts', { body: { email: 'bye@example.com', audienceId } });

    expect(removed.data).toEqual({ success: true, message: expect.any(String) });
    expect(again.response.status).toBe(404);
    expect((await api.GET('/api/contacts/{id}', byId)).response.status).toBe(404);
    expect(recreated.response.status).toBe(201);
    const stats = (await api.GET('/api/audiences/{id}/stats', { params: { path: { id: audienceId } } })).data!.data;
    expect(stats).toMatchObject({ total: 1, subscribed: 1, pending: 0 });
  });
});

describe('list contacts', () => {
  async function seeded() {
    const context = await setup();
    const { key, audienceId } = context;
    const other = (await request('POST', '/api/audiences', { key, body: { name: 'Other' } })).body.data.id as string;
    const people = [
      { email: 'alice@example.com', firstName: 'Alice', lastName: 'Archer', tags: ['vip'], audienceId },
      { email: 'bob@example.com', firstName: 'Bob', lastName: 'Baker', status: 'unsubscribed', audienceId },
      { email: 'carol@corp.io', firstName: 'Carol', lastName: 'Alison', tags: ['vip', 'beta'], audienceId },
      { email: 'dave@example.com', firstName: 'Dave', status: 'pending', audienceId: other },
    ];
    for (const person of people) await request('POST', '/api/contacts', { key, body: person });
    return { ...context, other };
  }

  const emails = (body: { contacts: { email: string }[] }) => body.contacts.map((contact) => contact.email);

  it('lists the account newest first in the list shape, with totals', async () => {
    const { key, audienceId } = await seeded();

    const all = await request('GET', '/api/contacts', { key });

    expect(emails(all.body)).toEqual(['dave@example.com', 'carol@corp.io', 'bob@example.com', 'alice@example.com']);
    expect(all.body.pagination).toEqual({ total: 4, page: 1, limit: 50, pages: 1 });
    expect(Object.keys(all.body.contacts[1]).sort()).toEqual(['audienceId', 'createdAt', 'email', 'firstName', 'id', 'lastName', 'status', 'tags']);
    expect(all.body.contacts[1]).toMatchObject({ email: 'carol@corp.io', audienceId, tags: ['vip', 'beta'], status: 'subscribed' });
  });

  it('filters by audience, status, tag and search, alone and together', async () => {
    const { key, audienceId, other } = await seeded();
    const list = async (query: string) => (await request('GET', `/api/contacts?${query}`, { key })).body;

    expect(emails(await list(`audienceId=${audienceId}`))).toEqual(['carol@corp.io', 'bob@example.com', 'alice@example.com']);
    expect((await list(`audienceId=${audienceId}`)).pagination.total).toBe(3);
    expect(emails(await list(`audienceId=${other}`))).toEqual(['dave@example.com']);
    expect(emails(await list('status=unsubscribed'))).toEqual(['bob@example.com']);
    expect((await list('status=subscribed')).pagination.total).toBe(2);
    expect(emails(await list(`audienceId=${audienceId}&status=subscribed`))).toEqual(['carol@corp.io', 'alice@example.com']);
    expect(emails(await list('tag=vip'))).toEqual(['carol@corp.io', 'alice@example.com']);
    expect(emails(await list('tag=beta&status=subscribed'))).toEqual(['carol@corp.io']);
    expect(emails(await list('search=ALI'))).toEqual(['carol@corp.io', 'alice@example.com']);
    expect(emails(await list('search=corp.io'))).toEqual(['carol@corp.io']);
    expect(emails(await list('search=baker'))).toEqual(['bob@example.com']);
    expect((await list('search=ali&limit=1')).pagination).toEqual({ total: 2, page: 1, limit: 1, pages: 2 });
    expect(emails(await list('search=ali&limit=1&page=2'))).toEqual(['alice@example.com']);
    expect(emails(await list('search=nobody'))).toEqual([]);
  });

  it('paginates with correct totals and an empty page past the end', async () => {
    const { key, audienceId } = await seeded();

    const page2 = await request('GET', `/api/contacts?audienceId=${audienceId}&limit=2&page=2`, { key });
    const past = await request('GET', `/api/contacts?audienceId=${audienceId}&limit=2&page=9`, { key });

    expect(emails(page2.body)).toEqual(['alice@example.com']);
    expect(page2.body.pagination).toEqual({ total: 3, page: 2, limit: 2, pages: 2 });
    expect(past.body).toEqual({ success: true, contacts: [], pagination: { total: 3, page: 9, limit: 2, pages: 2 } });
  });

  it('enforces the query parameters', async () => {
    const { key } = await setup();
    const cases: [string, string][] = [
      ['limit=101', 'limit'],
      ['limit=0', 'limit'],
      ['limit=2.5', 'limit'],
      ['page=0', 'page'],
      ['page=-1', 'page'],
      ['status=asleep', 'status'],
    ];

    for (const [query, field] of cases) {
      const response = await request('GET', `/api/contacts?${query}`, { key });
      expect({ query, status: response.status, error: response.body.error, field: response.body.field }).toEqual({
        query,
        status: 422,
        error: 'VALIDATION_ERROR',
        field,
      });
    }
    expect((await request('GET', '/api/contacts?limit=100', { key })).status).toBe(200);
  });
});
