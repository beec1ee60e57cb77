/**
 * What the route fuzzer found, each pinned as a plain example, so it stays
 * fixed whatever inputs the seeded fuzzing happens to draw next.
 */
import { describe, expect, it } from 'vitest';
import { createTestAccount } from '../support/accounts.ts';
import { request } from '../support/api.ts';

describe('found by fuzzing', () => {
  it('PATCH /api/audiences/{id} without a name (description only, or nothing) updates instead of a 500', async () => {
    const { key } = await createTestAccount();
    const { body: made } = await request('POST', '/api/audiences', { key, body: { name: 'Main', description: 'Old' } });

    const described = await request('PATCH', `/api/audiences/${made.data.id}`, { key, body: { description: 'New' } });
    const untouched = await request('PATCH', `/api/audiences/${made.data.id}`, { key, body: {} });

    expect(described.status).toBe(200);
    expect(described.body.data).toMatchObject({ id: made.data.id, name: 'Main', description: 'New' });
    expect(untouched.status).toBe(200);
    expect(untouched.body.data).toMatchObject({ name: 'Main', description: 'New' });
  });
});
