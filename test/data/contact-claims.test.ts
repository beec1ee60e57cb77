import { describe, expect, it } from 'vitest';
import { createTestAccount } from '../support/accounts.ts';
import { findContactsByEmail } from '#shared/contacts/store.ts';
import { createAudience } from '#shared/audiences/service.ts';
import { createContact, deleteContact, updateContact } from '#shared/contacts/service.ts';
import { importContacts } from '#shared/contacts/import.ts';

describe('email claims', () => {
  it('find an address in every audience with the status kept in step', async () => {
    const { accountId } = await createTestAccount();
    const now = new Date();
    const first = await createAudience(accountId, { name: 'First' }, now);
    const second = await createAudience(accountId, { name: 'Second' }, now);
    const third = await createAudience(accountId, { name: 'Third' }, now);
    const a = await createContact(accountId, { email: 'Who@Example.com', audienceId: first.id }, now);
    const b = await createContact(accountId, { email: 'who@example.com', audienceId: second.id, status: 'pending' }, now);
    await importContacts(accountId, { audienceId: third.id, contacts: [{ email: 'who@example.com', status: 'bounced' }], skipDuplicates: false }, now);

    await updateContact(accountId, a.id, { status: 'unsubscribed' }, now);
    await importContacts(accountId, { audienceId: second.id, contacts: [{ email: 'WHO@example.com', status: 'subscribed' }], skipDuplicates: false }, now);
    const memberships = await findContactsByEmail(accountId, 'who@example.com');
    await deleteContact(accountId, b.id, now);
    const afterDelete = await findContactsByEmail(accountId, 'who@example.com');

    const byAudience = Object.fromEntries(memberships.map(({ audienceId, status }) => [audienceId, status]));
    expect(byAudience).toEqual({ [first.id]: 'unsubscribed', [second.id]: 'subscribed', [third.id]: 'bounced' });
    expect(memberships.find((m) => m.audienceId === first.id)?.contactId).toBe(a.id);
    expect(afterDelete.map((m) => m.audienceId).sort()).toEqual([first.id, third.id].sort());
    expect(await findContactsByEmail(accountId, 'nobody@example.com')).toEqual([]);
    const stranger = await createTestAccount();
    expect(await findContactsByEmail(stranger.accountId, 'who@example.com')).toEqual([]);
  });
});
