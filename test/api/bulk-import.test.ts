import { afterEach, describe, expect, it, vi } from 'vitest';
import { request } from '../support/api.ts';
import { db, dynamo } from '#shared/platform/dynamodb/client.ts';
import { importContacts } from '#shared/contacts/import.ts';
import { MAX_CONTACTS_PER_INSERT_BATCH } from '#shared/contacts/store.ts';
import { deleteAudience } from '#shared/audiences/service.ts';
import { outsideInvocation } from '#dev/local/invocation.ts';
import { audienceCounters, recountAudience } from '../support/recount.ts';
import { accountWithAudience } from '../support/arrange.ts';

const setup = () => accountWithAudience('Import');

afterEach(() => {
  vi.restoreAllMocks();
});

describe('bulk import', () => {
  it('imports 1,000 contacts in batched round trips with exact counters', async () => {
    const { accountId, key, audienceId } = await setup();
    const contacts = Array.from({ length: 1000 }, (_, index) => ({ email: `user${index}@example.com`, firstName: `User ${index}`, tags: ['imported'] }));
    const sent = vi.spyOn(db, 'send');

    const result = await importContacts(accountId, { audienceId, contacts, skipDuplicates: false }, new Date());

    expect(result).toEqual({ imported: 1000, failed: 0, skipped: 0, errors: [] });
    expect(sent.mock.calls.length).toBeLessThanOrEqual(80);
    const stats = (await request('GET', `/api/audiences/${audienceId}/stats`, { key })).body.data;
    expect(stats).toMatchObject({ total: 1000, subscribed: 1000 });
    const list = (await request('GET', `/api/contacts?audienceId=${audienceId}&limit=100&page=10`, { key })).body;
    expect(list.contacts).toHaveLength(100);
    expect(list.pagination).toEqual({ total: 1000, page: 10, limit: 100, pages: 10 });
    expect(list.contacts[99].email).toBe('user0@example.com');
    const newest = (await request('GET', `/api/contacts?audienceId=${audienceId}&limit=2`, { key })).body.contacts;
    expect(newest.map((contact: { email: string }) => contact.email)).toEqual(['user999@example.com', 'user998@example.com']);
    expect((await request('GET', `/api/contacts?audienceId=${audienceId}&tag=imported&limit=1`, { key })).body.pagination.total).toBe(1000);
  });

  it('reports invalid entries alone and skips repeats inside the request', async () => {
    const { key, audienceId } = await setup();

    const response = await request('POST', '/api/contacts/bulk', {
      key,
      body: {
        audienceId,
        contacts: [
          { email: 'one@example.com', firstName: 'One' },
          { email: 'broken' },
          { firstName: 'No email' },
          { email: 'ONE@example.com', firstName: 'Again' },
          'not an object',
          { email: 'two@example.com', status: 'complained' },
          { email: 'three@example.com', tags: ['x'], status: 'pending' },
        ],
      },
    });

    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      success: true,
      imported: 2,
      failed: 4,
      skipped: 1,
      errors: [
        { index: 1, email: 'broken', error: 'INVALID_EMAIL', message: expect.any(String), field: 'contacts[1].email' },
        { index: 2, email: null, error: 'MISSING_REQUIRED_FIELD', message: expect.any(String), field: 'contacts[2].email' },
        { index: 4, email: null, error: 'VALIDATION_ERROR', message: expect.any(String), field: 'contacts[4]' },
        { index: 5, email: 'two@example.com', error: 'VALIDATION_ERROR', message: expect.any(String), field: 'contacts[5].status' },
      ],
    });
    const one = (await request('GET', `/api/contacts/email/one@example.com?audienceId=${audienceId}`, { key })).body.data;
    expect(one.firstName).toBe('One');
    const stats = (await request('GET', `/api/audiences/${audienceId}/stats`, { key })).body.data;
    expect(stats).toMatchObject({ total: 2, subscribed: 1, pending: 1 });
  });

  it('updates existing contacts by default and skips them with skipDuplicates', async () => {
    const { key, audienceId } = await setup();
    await request('POST', '/api/contacts', { key, body: { email: 'old@example.com', audienceId, firstName: 'Old', customFields: { a: 1 } } });

    const skipping = await request('POST', '/api/contacts/bulk', {
      key,
      body: { audienceId, skipDuplicates: true, contacts: [{ email: 'old@example.com', firstName: 'Skipped' }, { email: 'new1@example.com' }] },
    });
    const afterSkip = (await request('GET', `/api/contacts/email/old@example.com?audienceId=${audienceId}`, { key })).body.data;
    const updating = await request('POST', '/api/contacts/bulk', {
      key,
      body: {
        audienceId,
        contacts: [{ email: 'OLD@example.com', lastName: 'Timer', status: 'unsubscribed', customFields: { b: 2 } }, { email: 'new2@example.com' }],
      },
    });
    const afterUpdate = (await request('GET', `/api/contacts/email/old@example.com?audienceId=${audienceId}`, { key })).body.data;

    expect(skipping.body).toEqual({ success: true, imported: 1, failed: 0, skipped: 1, errors: [] });
    expect(afterSkip.firstName).toBe('Old');
    expect(updating.body).toEqual({ success: true, imported: 2, failed: 0, skipped: 0, errors: [] });
    expect(afterUpdate).toMatchObject({ firstName: 'Old', lastName: 'Timer', status: 'unsubscribed', customFields: { a: 1, b: 2 } });
    const stats = (await request('GET', `/api/audiences/${audienceId}/stats`, { key })).body.data;
    expect(stats).toMatchObject({ total: 3, subscribed: 2, unsubscribed: 1 });
  });

  it('records contact.created for each new row and contact.updated for each changed one, once: a replay records nothing', async () => {
    const { key, audienceId } = await setup();
    for (const email of ['old@example.com', 'same@example.com']) {
      await request('POST', '/api/contacts', { key, body: { email, audienceId, firstName: 'Kept' } });
    }
    // More new rows than one transaction holds, so the events ride in several.
    const fresh = Array.from({ length: 40 }, (_, index) => ({ email: `new${index}@example.com`, firstName: `New ${index}` }));
    const body = {
      audienceId,
      contacts: [{ email: 'old@example.com', firstName: 'Changed' }, { email: 'broken' }, { email: 'same@example.com', firstName: 'Kept' }, ...fresh],
    };
    const events = async () => (await request('GET', '/api/events?limit=100', { key })).body.events as { type: string; data: Record<string, unknown> }[];

    const first = await request('POST', '/api/contacts/bulk', { key, body });
    const afterFirst = await events();
    const replay = await request('POST', '/api/contacts/bulk', { key, body });
    const afterReplay = await events();

    expect(first.body).toMatchObject({ imported: 42, failed: 1, skipped: 0 });
    expect(replay.body).toMatchObject({ imported: 42, failed: 1, skipped: 0 });
    const imported = afterFirst.slice(0, -2);
    expect(imported.filter((event) => event.type === 'contact.created').map((event) => event.data.email)).toEqual(
      expect.arrayContaining(fresh.map((row) => row.email)),
    );
    expect(imported.map((event) => event.type).sort()).toEqual([...fresh.map(() => 'contact.created'), 'contact.updated']);
    const created = imported.find((event) => event.data.email === 'new7@example.com')!;
    expect(created.data).toMatchObject({ contactId: expect.stringMatching(/^con_/), audienceId, firstName: 'New 7', status: 'subscribed' });
    expect(imported.find((event) => event.type === 'contact.updated')!.data).toMatchObject({ email: 'old@example.com', firstName: 'Changed' });
    expect(afterReplay).toEqual(afterFirst);
  });

  it('refuses more than 1,000 contacts, a missing audience and an unknown one', async () => {
    const { key, audienceId } = await setup();
    const tooMany = Array.from({ length: 1001 }, (_, index) => ({ email: `u${index}@example.com` }));

    const over = await request('POST', '/api/contacts/bulk', { key, body: { audienceId, contacts: tooMany } });
    const noAudience = await request('POST', '/api/contacts/bulk', { key, body: { contacts: [] } });
    const unknown = await request('POST', '/api/contacts/bulk', {
      key,
      body: { audienceId: 'aud_00000000000000000000', contacts: [{ email: 'a@example.com' }] },
    });
    const notArray = await request('POST', '/api/contacts/bulk', { key, body: { audienceId, contacts: { email: 'a@example.com' } } });

    expect(over.status).toBe(422);
    expect(over.body).toMatchObject({ error: 'VALIDATION_ERROR', field: 'contacts' });
    expect(noAudience.status).toBe(400);
    expect(noAudience.body).toMatchObject({ error: 'MISSING_REQUIRED_FIELD', field: 'audienceId' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error: 'AUDIENCE_NOT_FOUND' });
    expect(notArray.body).toMatchObject({ error: 'VALIDATION_ERROR', field: 'contacts' });
    expect((await request('GET', `/api/audiences/${audienceId}/stats`, { key })).body.data.total).toBe(0);
  });

  it('keeps counters equal to a recount when imports race creates, updates and deletes', async () => {
    const { key, audienceId } = await setup();
    const seed = await request('POST', '/api/contacts/bulk', {
      key,
      body: { audienceId, contacts: Array.from({ length: 60 }, (_, i) => ({ email: `m${i}@example.com` })) },
    });
    expect(seed.body.imported).toBe(60);
    const ids = (await request('GET', `/api/contacts?audienceId=${audienceId}&limit=100`, { key })).body.contacts.map((c: { id: string }) => c.id) as string[];

    await Promise.all([
      request('POST', '/api/contacts/bulk', {
        key,
        body: { audienceId, contacts: Array.from({ length: 120 }, (_, i) => ({ email: `m${i}@example.com`, status: i % 3 ? 'subscribed' : 'pending' })) },
      }),
      request('POST', '/api/contacts/bulk', {
        key,
        body: { audienceId, skipDuplicates: true, contacts: Array.from({ length: 80 }, (_, i) => ({ email: `m${i + 50}@example.com` })) },
      }),
      ...ids.slice(0, 10).map((id) => request('DELETE', `/api/contacts/${id}`, { key })),
      ...ids.slice(10, 20).map((id) => request('PATCH', `/api/contacts/${id}`, { key, body: { status: 'bounced' } })),
      ...Array.from({ length: 10 }, (_, i) => request('POST', '/api/contacts', { key, body: { email: `m${100 + i}@example.com`, audienceId } })),
    ]);

    const everyone: { status: string }[] = [];
    for (let page = 1; ; page++) {
      const body = (await request('GET', `/api/contacts?audienceId=${audienceId}&limit=100&page=${page}`, { key })).body;
      everyone.push(...body.contacts);
      if (body.contacts.length < 100) break;
    }
    const stats = (await request('GET', `/api/audiences/${audienceId}/stats`, { key })).body.data;
    expect(stats.total).toBe(everyone.length);
    for (const status of ['subscribed', 'unsubscribed', 'pending', 'bounced', 'complained']) {
      expect({ status, count: stats[status] }).toEqual({ status, count: everyone.filter((c) => c.status === status).length });
    }
  });

  describe('an audience deleted while the import runs', () => {
    const HOOK = 'deleteAudienceMidImport';

    /**
     * Deletes the audience just before the import's `nth` transaction that
     * touches it: between two batches, the window no single request can aim at.
     */
    function deleteBefore(accountId: string, audienceId: string, nth: number): void {
      let seen = 0;
      let deleting = false;
      dynamo.middlewareStack.add(
        (next, context) => async (args) => {
          if (!deleting && context.commandName === 'TransactWriteItemsCommand' && JSON.stringify(args.input).includes(audienceId) && ++seen === nth) {
            deleting = true;
            // Another request's work, not the import's: outside its invocation, so its calls are not checked against the import's role.
            await outsideInvocation(() => deleteAudience(accountId, audienceId, new Date()));
          }
          return next(args);
        },
        { step: 'initialize', name: HOOK },
      );
    }

    afterEach(() => {
      dynamo.middlewareStack.remove(HOOK);
    });

    it('stops adding contacts to it: later batches fail with AUDIENCE_NOT_FOUND and its counters stay equal to a recount', async () => {
      const { accountId, key, audienceId } = await setup();
      const contacts = Array.from({ length: 120 }, (_, index) => ({ email: `late${index}@example.com` }));
      deleteBefore(accountId, audienceId, 2);

      const response = await request('POST', '/api/contacts/bulk', { key, body: { audienceId, contacts } });

      expect(response.status).toBe(200);
      // The first transaction's contacts joined before the delete.
      const joined = MAX_CONTACTS_PER_INSERT_BATCH;
      expect(response.body).toMatchObject({ imported: joined, failed: 120 - joined, skipped: 0 });
      expect(response.body.errors).toHaveLength(120 - joined);
      expect(response.body.errors[0]).toEqual({
        index: joined,
        email: `late${joined}@example.com`,
        error: 'AUDIENCE_NOT_FOUND',
        message: 'The audience was deleted during the import',
        field: `contacts[${joined}]`,
      });
      expect(new Set(response.body.errors.map((error: { error: string }) => error.error))).toEqual(new Set(['AUDIENCE_NOT_FOUND']));
      expect((await request('GET', `/api/audiences/${audienceId}`, { key })).status).toBe(404);
      // Deleting an audience leaves its contacts.
      const recount = await recountAudience(accountId, audienceId);
      expect(recount.total).toBe(joined);
      expect(await audienceCounters(accountId, audienceId)).toEqual(recount);
    });

    it('updates no existing contact of it once it is gone', async () => {
      const { accountId, key, audienceId } = await setup();
      const seeded = await request('POST', '/api/contacts/bulk', {
        key,
        body: { audienceId, contacts: [{ email: 'a@example.com' }, { email: 'b@example.com' }] },
      });
      expect(seeded.body.imported).toBe(2);
      deleteBefore(accountId, audienceId, 1);

      const response = await request('POST', '/api/contacts/bulk', {
        key,
        body: {
          audienceId,
          contacts: [
            { email: 'a@example.com', status: 'unsubscribed', firstName: 'Late' },
            { email: 'b@example.com', firstName: 'Late' },
          ],
        },
      });

      expect(response.body).toMatchObject({
        imported: 0,
        failed: 2,
        errors: [
          { index: 0, error: 'AUDIENCE_NOT_FOUND' },
          { index: 1, error: 'AUDIENCE_NOT_FOUND' },
        ],
      });
      const listed = (await request('GET', `/api/contacts?audienceId=${audienceId}`, { key })).body.contacts;
      expect(listed.map((contact: { firstName: string | null; status: string }) => [contact.firstName, contact.status])).toEqual([
        [null, 'subscribed'],
        [null, 'subscribed'],
      ]);
      expect(await audienceCounters(accountId, audienceId)).toEqual(await recountAudience(accountId, audienceId));
    });
  });
});
