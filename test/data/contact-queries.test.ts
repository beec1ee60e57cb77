import { describe, expect, it } from 'vitest';
import { createTestAccount } from '../support/accounts.ts';
import { queryContacts } from '#shared/contacts/store.ts';
import { createAudience } from '#shared/audiences/service.ts';
import { importContacts } from '#shared/contacts/import.ts';

describe('contact queries', () => {
  it('bound the items a filtered list examines and say when they stopped early', async () => {
    const { accountId } = await createTestAccount();
    const now = new Date();
    const audience = await createAudience(accountId, { name: 'Scan' }, now);
    const contacts = Array.from({ length: 30 }, (_, index) => ({ email: `p${index}@example.com`, tags: index % 2 ? ['odd'] : ['even'] }));
    await importContacts(accountId, { audienceId: audience.id, contacts, skipDuplicates: false }, now);

    const bounded = await queryContacts(accountId, { audienceId: audience.id, tag: 'odd' }, 0, 5, 10);
    const complete = await queryContacts(accountId, { audienceId: audience.id, tag: 'odd' }, 0, 5, 100);

    expect(bounded.truncated).toBe(true);
    expect(bounded.matched).toBe(5);
    expect(complete.truncated).toBe(false);
    expect(complete.matched).toBe(15);
    expect(complete.contacts.map((contact) => contact.email)).toEqual([
      'p29@example.com',
      'p27@example.com',
      'p25@example.com',
      'p23@example.com',
      'p21@example.com',
    ]);
  });

  it('read only as far as the page when nothing filters', async () => {
    const { accountId } = await createTestAccount();
    const now = new Date();
    const audience = await createAudience(accountId, { name: 'Pages' }, now);
    await importContacts(
      accountId,
      { audienceId: audience.id, contacts: Array.from({ length: 40 }, (_, index) => ({ email: `q${index}@example.com` })), skipDuplicates: false },
      now,
    );

    const page = await queryContacts(accountId, { audienceId: audience.id }, 10, 5);

    expect(page.matched).toBe(15);
    expect(page.truncated).toBe(false);
    expect(page.contacts.map((contact) => contact.email)).toEqual([
      'q29@example.com',
      'q28@example.com',
      'q27@example.com',
      'q26@example.com',
      'q25@example.com',
    ]);
  });
});
