/**
 * Counters under racing writers: each is compared with a recount of the items
 * it counts (contacts per audience and status, stored submissions), read
 * straight from the table through the store modules.
 */
import { describe, expect, it } from 'vitest';
import { request } from '../support/api.ts';
import { audienceCounters, recountAudience } from '../support/recount.ts';
import { createForm, submit } from '../forms/support.ts';
import { accountWithAudience } from '../support/arrange.ts';

const setup = () => accountWithAudience('Racing');

const bulk = (key: string, audienceId: string, contacts: object[], skipDuplicates = false) =>
  request('POST', '/api/contacts/bulk', { key, body: { audienceId, skipDuplicates, contacts } });

/** Stats endpoint, audience count and the counters item, each against the recount. */
async function expectExactCounts(accountId: string, key: string, audienceId: string) {
  const recount = await recountAudience(accountId, audienceId);
  const [stats, audience] = await Promise.all([
    request('GET', `/api/audiences/${audienceId}/stats`, { key }),
    request('GET', `/api/audiences/${audienceId}`, { key }),
  ]);
  const { growthRate: _, ...counted } = stats.body.data;
  expect(await audienceCounters(accountId, audienceId)).toEqual(recount);
  expect(counted).toEqual(recount);
  expect(audience.body.data.count).toBe(recount.total);
  return recount;
}

describe('one contact per email', () => {
  it('when creates, imports and form sign-ups race for the same address', async () => {
    const { accountId, key, audienceId } = await setup();
    const form = await createForm(key, { audienceId });

    const answers = await Promise.all([
      ...Array.from({ length: 40 }, (_, index) =>
        request('POST', '/api/contacts', { key, body: { email: index % 2 ? 'race@example.com' : ' Race@Example.com ', audienceId } }),
      ),
      ...Array.from({ length: 5 }, (_, index) =>
        bulk(key, audienceId, [{ email: 'race@example.com' }, { email: `other${index}@example.com` }], index % 2 === 0),
      ),
      ...Array.from({ length: 10 }, () => submit(form.id, { email: 'race@example.com', firstName: 'Racer' })),
    ]);

    expect(answers.filter((answer) => answer.status >= 500)).toEqual([]);
    expect(answers.slice(0, 40).filter((answer) => answer.status === 201).length).toBeLessThanOrEqual(1);
    const { contacts } = (await request('GET', `/api/contacts?audienceId=${audienceId}&search=race`, { key })).body;
    expect(contacts).toHaveLength(1);
    expect(await expectExactCounts(accountId, key, audienceId)).toMatchObject({ total: 6 });
  });
});

describe('audience counters and form analytics', () => {
  it('equal a recount after a concurrent mix of creates, updates, deletes, imports and form sign-ups', async () => {
    const { accountId, key, audienceId } = await setup();
    const form = await createForm(key, { audienceId });
    await bulk(
      key,
      audienceId,
      Array.from({ length: 60 }, (_, index) => ({ email: `seed${index}@example.com`, status: index % 4 ? 'subscribed' : 'pending' })),
    );
    const seeded = (await request('GET', `/api/contacts?audienceId=${audienceId}&limit=100`, { key })).body.contacts.map(
      (contact: { id: string }) => contact.id,
    ) as string[];

    const views = Array.from({ length: 12 }, () => request('GET', `/api/forms/public/${form.slug}`));
    const signUps = Array.from({ length: 15 }, (_, index) =>
      submit(form.id, { email: index < 10 ? `signup${index}@example.com` : `seed${index}@example.com`, firstName: 'Sign' }),
    );
    const writes = [
      ...Array.from({ length: 20 }, (_, index) =>
        request('POST', '/api/contacts', {
          key,
          body: { email: `new${index % 15}@example.com`, audienceId, status: index % 3 ? 'subscribed' : 'unsubscribed' },
        }),
      ),
      ...seeded.slice(0, 15).map((id) => request('DELETE', `/api/contacts/${id}`, { key })),
      ...seeded
        .slice(10, 30)
        .map((id, index) => request('PATCH', `/api/contacts/${id}`, { key, body: { status: ['bounced', 'complained', 'unsubscribed'][index % 3] } })),
      bulk(
        key,
        audienceId,
        Array.from({ length: 80 }, (_, index) => ({ email: `seed${index}@example.com`, status: index % 2 ? 'subscribed' : 'pending' })),
      ),
      bulk(
        key,
        audienceId,
        Array.from({ length: 50 }, (_, index) => ({ email: `bulk${index}@example.com` })),
        true,
      ),
    ];
    const [viewed, signedUp, written] = await Promise.all([Promise.all(views), Promise.all(signUps), Promise.all(writes)]);

    expect([...viewed, ...signedUp, ...written].filter((answer) => answer.status >= 500)).toEqual([]);
    await expectExactCounts(accountId, key, audienceId);

    const listed = (await request('GET', '/api/forms', { key })).body.forms.find((item: { id: string }) => item.id === form.id);
    const stored = (await request('GET', `/api/forms/${form.id}/submissions?limit=100`, { key })).body;
    expect(listed.analytics.views).toBe(viewed.filter((answer) => answer.status === 200).length);
    expect(listed.analytics.submissions).toBe(signedUp.filter((answer) => answer.status === 200).length);
    expect(stored.pagination.total).toBe(listed.analytics.submissions);
    expect(stored.submissions).toHaveLength(listed.analytics.submissions);
  });

  it('stay exact when one contact is updated and deleted at once', async () => {
    const { accountId, key, audienceId } = await setup();
    const contactId = (await request('POST', '/api/contacts', { key, body: { email: 'ann@example.com', audienceId } })).body.data.id as string;

    const answers = await Promise.all([
      ...Array.from({ length: 12 }, (_, index) =>
        request('PATCH', `/api/contacts/${contactId}`, { key, body: { status: index % 2 ? 'unsubscribed' : 'bounced' } }),
      ),
      request('DELETE', `/api/contacts/${contactId}`, { key }),
    ]);

    // Optimistic writers that keep losing give up with 409 CONFLICT; nothing else is acceptable.
    expect(answers.map((answer) => answer.status).filter((status) => ![200, 404, 409].includes(status))).toEqual([]);
    const deleted = answers.at(-1)!.status === 200;
    expect(await expectExactCounts(accountId, key, audienceId)).toMatchObject({ total: deleted ? 0 : 1 });
  });
});
