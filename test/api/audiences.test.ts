import { describe, expect, it } from 'vitest';
import { createTestAccount } from '../support/accounts.ts';
import { request } from '../support/api.ts';
import { createAudience, getAudienceStats, growthRate } from '#shared/domain/audiences.ts';
import { createContact } from '#shared/domain/contacts.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('audiences API', () => {
  it('creates an audience with count 0 and returns it with 201', async () => {
    const { key } = await createTestAccount();

    const response = await request('POST', '/api/audiences', { key, body: { name: ' Newsletter ', description: 'Monthly news' } });

    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      success: true,
      data: { id: expect.stringMatching(/^aud_[0-9A-Za-z]{20}$/), name: 'Newsletter', description: 'Monthly news', count: 0, createdAt: expect.stringMatching(ISO), updatedAt: expect.stringMatching(ISO) },
    });
  });

  it('requires a name and rejects unknown fields', async () => {
    const { key } = await createTestAccount();

    const missing = await request('POST', '/api/audiences', { key, body: { description: 'x' } });
    const blank = await request('POST', '/api/audiences', { key, body: { name: '   ' } });
    const unknown = await request('POST', '/api/audiences', { key, body: { name: 'A', colour: 'red' } });
    const wrongType = await request('POST', '/api/audiences', { key, body: { name: 5 } });

    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ success: false, error: 'MISSING_REQUIRED_FIELD', field: 'name' });
    expect(blank.body).toMatchObject({ error: 'MISSING_REQUIRED_FIELD', field: 'name' });
    expect(unknown.status).toBe(422);
    expect(unknown.body).toMatchObject({ error: 'VALIDATION_ERROR', field: 'colour' });
    expect(wrongType.status).toBe(422);
    expect(wrongType.body).toMatchObject({ error: 'VALIDATION_ERROR', field: 'name' });
  });

  it('lists newest first with exact pagination, and an empty page past the end', async () => {
    const { key } = await createTestAccount();
    const ids: string[] = [];
    for (const name of ['one', 'two', 'three']) {
      const created = await request('POST', '/api/audiences', { key, body: { name } });
      ids.push(created.body.data.id);
    }

    const first = await request('GET', '/api/audiences?limit=2', { key });
    const second = await request('GET', '/api/audiences?limit=2&page=2', { key });
    const past = await request('GET', '/api/audiences?limit=2&page=5', { key });

    expect(first.status).toBe(200);
    expect(first.body.audiences.map((a: { name: string }) => a.name)).toEqual(['three', 'two']);
    expect(first.body.audiences[0]).toEqual({ id: ids[2], name: 'three', description: null, count: 0, createdAt: expect.stringMatching(ISO) });
    expect(first.body.pagination).toEqual({ total: 3, page: 1, limit: 2, pages: 2 });
    expect(second.body.audiences.map((a: { name: string }) => a.name)).toEqual(['one']);
    expect(past.body).toEqual({ success: true, audiences: [], pagination: { total: 3, page: 5, limit: 2, pages: 2 } });
  });

  it('defaults to 20 per page and enforces page and limit ranges', async () => {
    const { key } = await createTestAccount();

    const defaults = await request('GET', '/api/audiences', { key });
    const zeroPage = await request('GET', '/api/audiences?page=0', { key });
    const bigLimit = await request('GET', '/api/audiences?limit=101', { key });
    const notNumber = await request('GET', '/api/audiences?limit=ten', { key });

    expect(defaults.body.pagination).toEqual({ total: 0, page: 1, limit: 20, pages: 0 });
    expect(zeroPage.status).toBe(422);
    expect(zeroPage.body).toMatchObject({ error: 'VALIDATION_ERROR', field: 'page' });
    expect(bigLimit.body).toMatchObject({ error: 'VALIDATION_ERROR', field: 'limit' });
    expect(notNumber.body).toMatchObject({ error: 'VALIDATION_ERROR', field: 'limit' });
  });

  it('gets, updates and deletes an audience; deletion keeps its contacts', async () => {
    const { key } = await createTestAccount();
    const audience = (await request('POST', '/api/audiences', { key, body: { name: 'Old', description: 'd' } })).body.data;
    const contact = (await request('POST', '/api/contacts', { key, body: { email: 'kept@example.com', audienceId: audience.id } })).body.data;

    const fetched = await request('GET', `/api/audiences/${audience.id}`, { key });
    const updated = await request('PATCH', `/api/audiences/${audience.id}`, { key, body: { name: 'New', description: null } });
    const removed = await request('DELETE', `/api/audiences/${audience.id}`, { key });
    const afterDelete = await request('GET', `/api/audiences/${audience.id}`, { key });
    const statsAfterDelete = await request('GET', `/api/audiences/${audience.id}/stats`, { key });
    const contactsAfterDelete = await request('GET', `/api/contacts?audienceId=${audience.id}`, { key });
    const listAfterDelete = await request('GET', '/api/audiences', { key });

    expect(fetched.body.data).toMatchObject({ id: audience.id, name: 'Old', description: 'd', count: 1 });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ id: audience.id, name: 'New', description: null, count: 1 });
    expect(updated.body.data.updatedAt >= audience.updatedAt).toBe(true);
    expect(removed.body).toEqual({ success: true, message: expect.any(String) });
    expect(afterDelete.status).toBe(404);
    expect(afterDelete.body).toMatchObject({ success: false, error: 'AUDIENCE_NOT_FOUND' });
    expect(statsAfterDelete.body).toMatchObject({ error: 'AUDIENCE_NOT_FOUND' });
    expect(contactsAfterDelete.body.contacts.map((c: { id: string }) => c.id)).toEqual([contact.id]);
    expect(contactsAfterDelete.body.pagination.total).toBe(1);
    expect(listAfterDelete.body.pagination.total).toBe(0);
    expect((await request('GET', `/api/contacts/${contact.id}`, { key })).body.data.audienceId).toBe(audience.id);
  });

  it('answers 404 AUDIENCE_NOT_FOUND for unknown, malformed and foreign ids alike', async () => {
    const owner = await createTestAccount();
    const stranger = await createTestAccount();
    const audience = (await request('POST', '/api/audiences', { key: owner.key, body: { name: 'Mine' } })).body.data;

    const answers = await Promise.all([
      request('GET', `/api/audiences/${audience.id}`, { key: stranger.key }),
      request('GET', `/api/audiences/${audience.id}/stats`, { key: stranger.key }),
      request('PATCH', `/api/audiences/${audience.id}`, { key: stranger.key, body: { name: 'Theirs' } }),
      request('DELETE', `/api/audiences/${audience.id}`, { key: stranger.key }),
      request('GET', '/api/audiences/aud_00000000000000000000', { key: owner.key }),
      request('GET', '/api/audiences/not-an-id', { key: owner.key }),
    ]);

    for (const answer of answers) {
      expect(answer.status).toBe(404);
      expect(answer.body).toEqual({ success: false, error: 'AUDIENCE_NOT_FOUND', message: 'Audience not found' });
    }
    expect((await request('GET', `/api/audiences/${audience.id}`, { key: owner.key })).body.data.name).toBe('Mine');
    expect((await request('GET', '/api/audiences', { key: stranger.key })).body.audiences).toEqual([]);
  });

  it('reports stats per status', async () => {
    const { key } = await createTestAccount();
    const audience = (await request('POST', '/api/audiences', { key, body: { name: 'Stats' } })).body.data;
    const statuses = ['subscribed', 'subscribed', 'pending', 'unsubscribed', 'bounced'];
    const created = await Promise.all(statuses.map((status, index) =>
      request('POST', '/api/contacts', { key, body: { email: `s${index}@example.com`, audienceId: audience.id, status } })));
    await request('PATCH', `/api/contacts/${created[0]!.body.data.id}`, { key, body: { status: 'complained' } });

    const stats = await request('GET', `/api/audiences/${audience.id}/stats`, { key });

    expect(stats.body).toEqual({
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
