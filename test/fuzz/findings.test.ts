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

describe('found by fuzzing: forms', () => {
  it('PATCH /api/forms/{id} with an unknown audience and a malformed sender answers 4xx and leaves no rejection unhandled', async () => {
    const { key } = await createTestAccount();
    const { body: made } = await request('POST', '/api/forms', { key, body: { title: 'Sign up', fields: [{ id: 'email', type: 'email', label: 'Email' }] } });
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);

    try {
      const response = await request('PATCH', `/api/forms/${made.data.id}`, {
        key,
        body: { audienceId: 'aud_00000000000000000000', settings: { from: 'not an address', notifyEmail: 'owner@example.org' } },
      });
      await new Promise((resolve) => setTimeout(resolve, 100));

      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', record);
    }
  });
});

describe('found by fuzzing: hostile bodies', () => {
  it('POST /api/contacts/bulk with an entry whose email is nested 20,000 deep fails that entry instead of a 500 echoing it back', async () => {
    const { key } = await createTestAccount();
    const { body: made } = await request('POST', '/api/audiences', { key, body: { name: 'Deep' } });
    const deep = `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`;

    const response = await request('POST', '/api/contacts/bulk', {
      key,
      rawBody: `{"audienceId": ${JSON.stringify(made.data.id)}, "contacts": [{"email": ${deep}}, {"email": "ok@example.com"}]}`,
      headers: { 'content-type': 'application/json' },
    });

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ imported: 1, failed: 1, errors: [{ index: 0, email: null, error: 'VALIDATION_ERROR', field: 'contacts[0].email' }] });
  });
});
