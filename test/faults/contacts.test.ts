/**
 * DynamoDB faults on each contact and audience write: the client gets the
 * generic 500 envelope (retry), and what is stored stays whole: every contact
 * with its email claim and its share of the counters, or none of them.
 */
import { describe, expect, it } from 'vitest';
import { request } from '../support/api.ts';
import { audienceCounters, recountAudience } from '../support/recount.ts';
import { MAX_CONTACTS_PER_INSERT_BATCH, MAX_CONTACTS_PER_REPLACE_BATCH } from '#shared/contacts/store.ts';
import { injectDynamoFault, INTERNAL_ERROR, type DynamoFault } from './support.ts';
import { accountWithAudience } from '../support/arrange.ts';

const setup = () => accountWithAudience('Faults');

async function expectCountersMatchRecount(accountId: string, audienceId: string, total: number) {
  const recount = await recountAudience(accountId, audienceId);
  expect(await audienceCounters(accountId, audienceId)).toEqual(recount);
  expect(recount.total).toBe(total);
}

const failures: DynamoFault[] = ['throttled', 'cancelled', 'timeout'];

describe('create contact under DynamoDB faults', () => {
  it.each(failures)('%s before the write: 500, and neither the contact, its claim nor a count', async (fault) => {
    const { accountId, key, audienceId } = await setup();
    injectDynamoFault({ command: 'TransactWriteItemsCommand', touching: accountId, fault });

    const failed = await request('POST', '/api/contacts', { key, body: { email: 'ann@example.com', audienceId } });

    expect(failed).toMatchObject({ status: 500, body: INTERNAL_ERROR });
    expect((await request('GET', `/api/contacts/email/ann@example.com?audienceId=${audienceId}`, { key })).status).toBe(404);
    await expectCountersMatchRecount(accountId, audienceId, 0);
    expect((await request('POST', '/api/contacts', { key, body: { email: 'ann@example.com', audienceId } })).status).toBe(201);
    await expectCountersMatchRecount(accountId, audienceId, 1);
  });

  it('an answer lost after the write: 500, the contact is whole and counted, and a retry finds it', async () => {
    const { accountId, key, audienceId } = await setup();
    injectDynamoFault({ command: 'TransactWriteItemsCommand', touching: accountId, fault: 'timeout', after: true });

    const failed = await request('POST', '/api/contacts', { key, body: { email: 'ann@example.com', audienceId } });
    const retried = await request('POST', '/api/contacts', { key, body: { email: 'ann@example.com', audienceId } });

    expect(failed).toMatchObject({ status: 500, body: INTERNAL_ERROR });
    expect(retried).toMatchObject({ status: 409, body: { error: 'CONTACT_EXISTS', field: 'email' } });
    await expectCountersMatchRecount(accountId, audienceId, 1);
  });

  it('a transaction lost to a concurrent one is retried, not reported', async () => {
    const { accountId, key, audienceId } = await setup();
    const injected = injectDynamoFault({ command: 'TransactWriteItemsCommand', touching: accountId, fault: 'conflict' });

    const created = await request('POST', '/api/contacts', { key, body: { email: 'ann@example.com', audienceId } });

    expect(created.status).toBe(201);
    expect(injected.matched()).toBe(2);
    await expectCountersMatchRecount(accountId, audienceId, 1);
  });
});

describe('update and delete contact under DynamoDB faults', () => {
  async function withContact() {
    const context = await setup();
    const contact = (
      await request('POST', '/api/contacts', { key: context.key, body: { email: 'ann@example.com', audienceId: context.audienceId, firstName: 'Ann' } })
    ).body.data;
    return { ...context, contactId: contact.id as string };
  }

  it.each(failures)('%s on update: 500, the contact and the counters as they were', async (fault) => {
    const { accountId, key, audienceId, contactId } = await withContact();
    injectDynamoFault({ command: 'TransactWriteItemsCommand', touching: accountId, fault });

    const failed = await request('PATCH', `/api/contacts/${contactId}`, { key, body: { status: 'bounced', firstName: 'Anna' } });

    expect(failed).toMatchObject({ status: 500, body: INTERNAL_ERROR });
    expect((await request('GET', `/api/contacts/${contactId}`, { key })).body.data).toMatchObject({ status: 'subscribed', firstName: 'Ann' });
    await expectCountersMatchRecount(accountId, audienceId, 1);
    expect((await audienceCounters(accountId, audienceId)).subscribed).toBe(1);
  });

  it('an update whose answer was lost is applied whole, with its status counted', async () => {
    const { accountId, key, audienceId, contactId } = await withContact();
    injectDynamoFault({ command: 'TransactWriteItemsCommand', touching: accountId, fault: 'timeout', after: true });

    expect((await request('PATCH', `/api/contacts/${contactId}`, { key, body: { status: 'bounced' } })).status).toBe(500);

    expect((await request('GET', `/api/contacts/${contactId}`, { key })).body.data.status).toBe('bounced');
    await expectCountersMatchRecount(accountId, audienceId, 1);
    expect((await audienceCounters(accountId, audienceId)).bounced).toBe(1);
  });

  it.each(failures)('%s on delete: 500, the contact still there and counted; a retry deletes it', async (fault) => {
    const { accountId, key, audienceId, contactId } = await withContact();
    injectDynamoFault({ command: 'TransactWriteItemsCommand', touching: accountId, fault });

    expect(await request('DELETE', `/api/contacts/${contactId}`, { key })).toMatchObject({ status: 500, body: INTERNAL_ERROR });
    await expectCountersMatchRecount(accountId, audienceId, 1);

    expect((await request('DELETE', `/api/contacts/${contactId}`, { key })).status).toBe(200);
    await expectCountersMatchRecount(accountId, audienceId, 0);
    expect((await request('POST', '/api/contacts', { key, body: { email: 'ann@example.com', audienceId } })).status).toBe(201);
  });
});

describe('bulk import under DynamoDB faults', () => {
  it.each(failures)('%s on the second batch: 500, the first batch whole and counted; the retry completes the import', async (fault) => {
    const { accountId, key, audienceId } = await setup();
    const contacts = Array.from({ length: 120 }, (_, index) => ({ email: `user${index}@example.com` }));
    injectDynamoFault({ command: 'TransactWriteItemsCommand', touching: accountId, nth: 2, fault });

    const failed = await request('POST', '/api/contacts/bulk', { key, body: { audienceId, contacts } });
    expect(failed).toMatchObject({ status: 500, body: INTERNAL_ERROR });
    await expectCountersMatchRecount(accountId, audienceId, MAX_CONTACTS_PER_INSERT_BATCH);

    const retried = await request('POST', '/api/contacts/bulk', { key, body: { audienceId, contacts } });
    expect(retried.body).toMatchObject({ success: true, imported: 120, failed: 0, skipped: 0 });
    await expectCountersMatchRecount(accountId, audienceId, 120);
    // Each contact's event was written with it: the retry adds the missing ones and repeats none.
    const created: string[] = [];
    let cursor = '';
    do {
      const page = (await request('GET', `/api/events?type=contact.created&limit=100${cursor && `&cursor=${encodeURIComponent(cursor)}`}`, { key })).body;
      created.push(...page.events.map((event: { data: { email: string } }) => event.data.email));
      cursor = page.pagination.nextCursor ?? '';
    } while (cursor);
    expect(created.sort()).toEqual(contacts.map((contact) => contact.email).sort());
  });

  it('a failed update batch of an import leaves the counters exact', async () => {
    const { accountId, key, audienceId } = await setup();
    const contacts = Array.from({ length: 60 }, (_, index) => ({ email: `user${index}@example.com` }));
    await request('POST', '/api/contacts/bulk', { key, body: { audienceId, contacts } });
    injectDynamoFault({ command: 'TransactWriteItemsCommand', touching: accountId, nth: 2, fault: 'throttled' });

    const failed = await request('POST', '/api/contacts/bulk', {
      key,
      body: { audienceId, contacts: contacts.map((contact) => ({ ...contact, status: 'unsubscribed' })) },
    });

    expect(failed.status).toBe(500);
    const counters = await audienceCounters(accountId, audienceId);
    expect(counters).toEqual(await recountAudience(accountId, audienceId));
    // The first transaction's contacts were written before the fault.
    expect(counters).toMatchObject({ total: 60, unsubscribed: MAX_CONTACTS_PER_REPLACE_BATCH, subscribed: 60 - MAX_CONTACTS_PER_REPLACE_BATCH });
  });
});

describe('audience delete under DynamoDB faults', () => {
  it.each(failures)('%s: 500 and the audience is still there; a retry deletes it and keeps its contacts', async (fault) => {
    const { accountId, key, audienceId } = await setup();
    await request('POST', '/api/contacts', { key, body: { email: 'ann@example.com', audienceId } });
    injectDynamoFault({ command: 'TransactWriteItemsCommand', touching: accountId, fault });

    expect(await request('DELETE', `/api/audiences/${audienceId}`, { key })).toMatchObject({ status: 500, body: INTERNAL_ERROR });
    expect((await request('GET', `/api/audiences/${audienceId}`, { key })).body.data.count).toBe(1);

    expect((await request('DELETE', `/api/audiences/${audienceId}`, { key })).status).toBe(200);
    expect((await request('GET', `/api/audiences/${audienceId}`, { key })).status).toBe(404);
    expect((await request('GET', `/api/contacts?audienceId=${audienceId}`, { key })).body.contacts).toHaveLength(1);
  });
});

describe('template create under DynamoDB faults', () => {
  async function templatesListed(key: string) {
    const { body } = await request('GET', '/api/templates?limit=100', { key });
    return { total: body.pagination.total as number, listed: body.templates.length as number };
  }

  it.each(failures)('%s: 500, and no template nor count', async (fault) => {
    const { accountId, key } = await setup();
    injectDynamoFault({ command: 'TransactWriteItemsCommand', touching: accountId, fault });

    const failed = await request('POST', '/api/templates', { key, body: { name: 'Welcome', subject: 'Hi' } });

    expect(failed).toMatchObject({ status: 500, body: INTERNAL_ERROR });
    expect(await templatesListed(key)).toEqual({ total: 0, listed: 0 });
  });

  it('an answer lost after the write: the template is stored and counted once', async () => {
    const { accountId, key } = await setup();
    injectDynamoFault({ command: 'TransactWriteItemsCommand', touching: accountId, fault: 'timeout', after: true });

    expect((await request('POST', '/api/templates', { key, body: { name: 'Welcome', subject: 'Hi' } })).status).toBe(500);

    expect(await templatesListed(key)).toEqual({ total: 1, listed: 1 });
  });
});
