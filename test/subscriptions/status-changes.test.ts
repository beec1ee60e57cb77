import { describe, expect, it } from 'vitest';
import { createTestAccount } from '../support/accounts.ts';
import { createAudience, getAudienceStats } from '#shared/audiences/service.ts';
import { changeContactStatus, createContact, getContact } from '#shared/contacts/service.ts';

const now = new Date();

describe('changeContactStatus', () => {
  it('moves the status only from the statuses allowed, checked on the version it writes', async () => {
    const { accountId } = await createTestAccount();
    const audience = await createAudience(accountId, { name: 'News' }, now);
    const bounced = await createContact(accountId, { email: 'ana@example.com', audienceId: audience.id, status: 'bounced' }, now);
    const subscribed = await createContact(accountId, { email: 'bob@example.com', audienceId: audience.id }, now);

    const kept = await changeContactStatus(accountId, bounced.id, ['subscribed', 'pending'], 'unsubscribed', now);
    const moved = await changeContactStatus(accountId, subscribed.id, ['subscribed', 'pending'], 'unsubscribed', now);

    expect(kept).toEqual(bounced);
    expect(await getContact(accountId, bounced.id)).toEqual(bounced);
    expect(moved.status).toBe('unsubscribed');
    expect(await getAudienceStats(accountId, audience.id, now)).toMatchObject({ total: 2, subscribed: 0, unsubscribed: 1, bounced: 1 });
  });

  it('counts a move once when the same choice races with itself', async () => {
    const { accountId } = await createTestAccount();
    const audience = await createAudience(accountId, { name: 'News' }, now);
    const contact = await createContact(accountId, { email: 'ana@example.com', audienceId: audience.id }, now);

    await Promise.all(Array.from({ length: 5 }, () => changeContactStatus(accountId, contact.id, ['subscribed'], 'unsubscribed', now)));

    expect(await getAudienceStats(accountId, audience.id, now)).toMatchObject({ total: 1, subscribed: 0, unsubscribed: 1 });
  });
});
