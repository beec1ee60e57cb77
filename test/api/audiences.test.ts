import { describe, expect, it } from 'vitest';
import { createTestAccount } from '../support/accounts.ts';
import { request } from '../support/api.ts';
import { apiClient } from '../support/client.ts';
import { createAudience, getAudienceStats, growthRate } from '#shared/audiences/service.ts';
import { createContact } from '#shared/contacts/service.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Through the typed client, as a customer would call the API; malformed input, which its types refuse, goes through `request`. */
describe('audiences API', () => {
  it('creates an audience with count 0 and returns it with 201', async () => {
    const api = await apiClient((await createTestAccount()).key);

    const { response, data } = await api.POST('/api/audiences', { body: { name: ' Newsletter ', description: 'Monthly news' } });

    expect(response.status).toBe(201);
    expect(data).toEqual({
      success: true,
      data: {
        id: expect.stringMatching(/^aud_[0-9A-Za-z]{20}$/),
        name: 'Newsletter',
        description: 'Monthly news',
        count: 0,
        createdAt: expect.stringMatching(ISO),
        updatedAt: expect.stringMatching(ISO),
      },
    });
  });

  it('requires a name and rejects unknown fields', async () => {
    const { key } = await createTestAccount();
    const api = await apiClient(key);

    const missing = await api.POST('/api/audiences', { body: { description: 'x' } as never });
    const blank = await api.POST('/api/audiences', { body: { name: '   ' } });
    const unknown = await request('POST', '/api/audiences', { key, body: { name: 'A', colour: 'red' } });
    const wrongType = await request('POST', '/api/audiences', { key, body: { name: 5 } });

    expect(missing.response.status).toBe(400);
    expect(missing.error).toMatchObject({ success: false, error: 'MISSING_REQUIRED_FIELD', field: 'name' });
    expect(blank.error).toMatchObject({ error: 'MISSING_REQUIRED_FIELD', field: 'name' });
    expect(unknown.status).toBe(422);
    expect(unknown.body).toMatchObject({ error: 'VALIDATION_ERROR', field: 'colour' });
    expect(wrongType.status).toBe(422);
    expect(wrongType.body).toMatchObject({ error: 'VALIDATION_ERROR', field: 'name' });
  });

  it('lists newest first with exact pagination, and an empty page past the end', async () => {
    const api = await apiClient((await createTestAccount()).key);
    const ids: string[] = [];
    for (const name of ['one', 'two', 'three']) {
      const created = await api.POST('/api/audiences', { body: { name } });
      ids.push(created.data!.data.id);
    }

    const first = await api.GET('/api/audiences', { params: { query: { limit: '2' } } });
    const second = await api.GET('/api/audiences', { params: { query: { limit: '2', page: '2' } } });
    const past = await api.GET('/api/audiences', { params: { query: { limit: '2', page: '5' } } });

    expect(first.response.status).toBe(200);
    expect(first.data!.audiences.map((a) => a.name)).toEqual(['three', 'two']);
    expect(first.data!.audiences[0]).toEqual({ id: ids[2], name: 'three', description: null, count: 0, createdAt: expect.stringMatching(ISO) });
    expect(first.data!.pagination).toEqual({ total: 3, page: 1, limit: 2, pages: 2 });
    expect(second.data!.audiences.map((a) => a.name)).toEqual(['one']);
    expect(past.data).toEqual({ success: true, audiences: [], pagination: { total: 3, page: 5, limit: 2, pages: 2 } });
  });

  it('defaults to 20 per page and enforces page and limit ranges', async () => {
    const api = await apiClient((await createTestAccount()).key);

    const defaults = await api.GET('/api/audiences');
    const zeroPage = await api.GET('/api/audiences', { params: { query: { page: '0' } } });
    const bigLimit = await api.GET('/api/audiences', { params: { query: { limit: '101' } } });
    const notNumber = await api.GET('/api/audiences', { params: { query: { limit: 'ten' } } });

    expect(defaults.data!.pagination).toEqual({ total: 0, page: 1, limit: 20, pages: 0 });
    expect(zeroPage.response.status).toBe(422);
    expect(zeroPage.error).toMatchObject({ error: 'VALIDATION_ERROR', field: 'page' });
    expect(bigLimit.error).toMatchObject({ error: 'VALIDATION_ERROR', field: 'limit' });
    expect(notNumber.error).toMatchObject({ error: 'VALIDATION_ERROR', field: 'limit' });
  });

  it('gets, updates and deletes an audience; deletion keeps its contacts', async () => {
    const api = await apiClient((await createTestAccount()).key);
    const audience = (await api.POST('/api/audiences', { body: { name: 'Old', description: 'd' } })).data!.data;
    const contact = (await api.POST('/api/contacts', { body: { email: 'kept@example.com', audienceId: audience.id } })).data!.data;
    const byId = { params: { path: { id: audience.id } } };

    const fetched = await api.GET('/api/audiences/{id}', byId);
    const updated = await api.PATCH('/api/audiences/{id}', { ...byId, body: { name: 'New', description: null } });
    const removed = await api.DELETE('/api/audiences/{id}', byId);
    const afterDelete = await api.GET('/api/audiences/{id}', byId);
    const statsAfterDelete = await api.GET('/api/audiences/{id}/stats', byId);
    const contactsAfterDelete = await api.GET('/api/contacts', { params: { query: { audienceId: audience.id } } });
    const listAfterDelete = await api.GET('/api/audiences');

    expect(fetched.data!.data).toMatchObject({ id: audience.id, name: 'Old', description: 'd', count: 1 });
    expect(updated.response.status).toBe(200);
    expect(updated.data!.data).toMatchObject({ id: audience.id, name: 'New', description: null, count: 1 });
    expect(updated.data!.data.updatedAt >= audience.updatedAt).toBe(true);
    expect(removed.data).toEqual({ success: true, message: expect.any(String) });
    expect(afterDelete.response.status).toBe(404);
    expect(afterDelete.error).toMatchObject({ success: false, error: 'AUDIENCE_NOT_FOUND' });
    expect(statsAfterDelete.error).toMatchObject({ error: 'AUDIENCE_NOT_FOUND' });
    expect(contactsAfterDelete.data!.contacts.map((c) => c.id)).toEqual([contact.id]);
    expect(contactsAfterDelete.data!.pagination.total).toBe(1);
    expect(listAfterDelete.data!.pagination.total).toBe(0);
    expect((await api.GET('/api/contacts/{id}', { params: { path: { id: contact.id } } })).data!.data.audienceId).toBe(audience.id);
  });

  it('answers 404 AUDIENCE_NOT_FOUND for unknown, malformed and foreign ids alike', async () => {
    const owner = await apiClient((await createTestAccount()).key);
    const stranger = await apiClient((await createTestAccount()).key);
    const audience = (await owner.POST('/api/audiences', { body: { name: 'Mine' } })).data!.data;
    const byId = (id: string) => ({ params: { path: { id } } });

    const answers = await Promise.all([
      stranger.GET('/api/audiences/{id}', byId(audience.id)),
      stranger.GET('/api/audiences/{id}/stats', byId(audience.id)),
      stranger.PATCH('/api/audiences/{id}', { ...byId(audience.id), body: { name: 'Theirs' } }),
      stranger.DELETE('/api/audiences/{id}', byId(audience.id)),
      owner.GET('/api/audiences/{id}', byId('aud_00000000000000000000')),
      owner.GET('/api/audiences/{id}', byId('not-an-id')),
    ]);

    for (const answer of answers) {
      expect(answer.response.status).toBe(404);
      expect(answer.error).toEqual({ success: false, error: 'AUDIENCE_NOT_FOUND', message: 'Audience not found' });
    }
    expect((await owner.GET('/api/audiences/{id}', byId(audience.id))).data!.data.name).toBe('Mine');
    expect((await stranger.GET('/api/audiences')).data!.audiences).toEqual([]);
  });

  it('reports stats per status', async () => {
    const api = await apiClient((await createTestAccount()).key);
    const audience = (await api.POST('/api/audiences', { body: { name: 'Stats' } })).data!.data;
    const statuses = ['subscribed', 'subscribed', 'pending', 'unsubscribed', 'bounced'] as const;
    const created = await Promise.all(
      statuses.map((status, index) => api.POST('/api/contacts', { body: { email: `s${index}@example.com`, audienceId: audience.id, status } })),
    );
    await api.PATCH('/api/contacts/{id}', { params: { path: { id: created[0]!.data!.data.id } }, body: { status: 'complained' } });

    const stats = await api.GET('/api/audiences/{id}/stats', { params: { path: { id: audience.id } } });

    expect(stats.data).toEqual({
      success: true,
      data: { total: 5, subscribed: 1, unsubscribed: 1, pending: 1, bounced: 1, complained: 1, growthRate: 0 },
    });
  });
});

describe('growthRate', () => {
  const now = new Date('2026-11-21T12:00:00Z');

  it('is the percent change over 30 days, to one decimal', () => {
    expect(growthRate({ count: 15, dailyChange: { '2026-11-21': 3, '2026-11-01': 2 } }, now)).toBe(50);
    expect(growthRate({ count: 10, dailyChange: { '2026-11-20': -2 } }, now)).toBe(-16.7);
  });

  it('ignores changes older than 30 days and is 0 when there was nothing before', () => {
    expect(growthRate({ count: 12, dailyChange: { '2026-10-22': 10, '2026-10-23': 2 } }, now)).toBe(20);
    expect(growthRate({ count: 4, dailyChange: { '2026-11-21': 4 } }, now)).toBe(0);
  });

  it('follows contacts created over time', async () => {
    const { accountId } = await createTestAccount();
    const longAgo = new Date('2026-09-01T00:00:00Z');
    const audience = await createAudience(accountId, { name: 'Growing' }, longAgo);
    for (const index of [1, 2, 3, 4]) {
      await createContact(accountId, { email: `old${index}@example.com`, audienceId: audience.id }, longAgo);
    }
    await createContact(accountId, { email: 'new@example.com', audienceId: audience.id }, now);

    const stats = await getAudienceStats(accountId, audience.id, now);

    expect(stats.total).toBe(5);
    expect(stats.growthRate).toBe(25);
  });
});
