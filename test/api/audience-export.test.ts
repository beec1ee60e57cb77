/**
 * POST /api/audiences/{id}/exports: the audience's contacts as CSV in the
 * attachments bucket (the local S3), behind a presigned link that works for
 * 15 minutes, under a key of the caller's account.
 */
import { describe, expect, it } from 'vitest';
import { requestExport } from '#shared/contacts/export.ts';
import { importContacts } from '#shared/contacts/import.ts';
import { createTestAccount } from '../support/accounts.ts';
import { request } from '../support/api.ts';
import { accountWithMember, asPerson, runMailWorker, signIn } from '../people/support.ts';

runMailWorker();

async function audienceOf(key: string, name = 'Export me'): Promise<string> {
  const created = await request('POST', '/api/audiences', { key, body: { name } });
  expect(created.status).toBe(201);
  return created.body.data.id;
}

describe('exporting an audience to CSV', () => {
  it('writes every contact, quoting what CSV needs and defusing formulas, and answers a link valid 15 minutes', async () => {
    const { accountId, key } = await createTestAccount();
    const audienceId = await audienceOf(key, 'Customers, 2026');
    const other = await audienceOf(key, 'Other');
    await importContacts(
      accountId,
      {
        audienceId,
        skipDuplicates: false,
        contacts: [
          {
            email: 'ada@example.org',
            firstName: 'Ada',
            lastName: 'Lovelace, Countess',
            phone: '+44 20 7946 0000',
            tags: ['vip', 'early'],
            customFields: { plan: 'pro', seats: 3 },
          },
          {
            email: 'bob@example.org',
            firstName: '=HYPERLINK("http://evil.example")',
            status: 'unsubscribed',
            customFields: { note: 'said "hi"\nthen left', vip: true },
          },
          { email: 'cy@example.org' },
        ],
      },
      new Date(),
    );
    await importContacts(accountId, { audienceId: other, skipDuplicates: false, contacts: [{ email: 'elsewhere@example.org' }] }, new Date());
    const before = Date.now();

    const exported = await request('POST', `/api/audiences/${audienceId}/exports`, { key });
    const download = await fetch(exported.body.data.url);
    const csv = await download.text();

    expect(exported.status).toBe(201);
    expect(exported.body).toEqual({
      success: true,
      data: {
        id: expect.stringMatching(/^exp_/),
        status: 'ready',
        rows: 3,
        url: expect.any(String),
        expiresAt: expect.any(String),
        createdAt: expect.any(String),
      },
    });
    const url = new URL(exported.body.data.url);
    expect(decodeURIComponent(url.pathname)).toMatch(new RegExp(`/exports/${accountId}/${audienceId}/exp_[0-9A-Za-z]+\\.csv$`));
    expect(url.searchParams.get('X-Amz-Expires')).toBe('900');
    expect(url.searchParams.get('response-content-disposition')).toBe('attachment; filename="Customers-2026.csv"');
    const lifetime = Date.parse(exported.body.data.expiresAt) - before;
    expect(lifetime).toBeGreaterThan(14 * 60_000);
    expect(lifetime).toBeLessThanOrEqual(15 * 60_000 + 1000);
    expect(download.status).toBe(200);
    const lines = csv.split('\r\n');
    expect(lines[0]).toBe(
      'email,firstName,lastName,phone,status,tags,createdAt,updatedAt,customFields.note,customFields.plan,customFields.seats,customFields.vip',
    );
    // Oldest first: the order the import created them in.
    expect(lines.slice(1).map((line) => line.replace(/,\d{4}-\d\d-\d\dT[\d:.]+Z,\d{4}-\d\d-\d\dT[\d:.]+Z/, ',<created>,<updated>'))).toEqual([
      'ada@example.org,Ada,"Lovelace, Countess",+44 20 7946 0000,subscribed,vip;early,<created>,<updated>,,pro,3,',
      `bob@example.org,"'=HYPERLINK(""http://evil.example"")",,,unsubscribed,,<created>,<updated>,"said ""hi""\nthen left",,,true`,
      'cy@example.org,,,,subscribed,,<created>,<updated>,,,,',
      '',
    ]);
  });

  it('answers 404 for an unknown audience or one of another account, and exports an empty audience as its header', async () => {
    const owner = await createTestAccount();
    const stranger = await createTestAccount();
    const audienceId = await audienceOf(owner.key);

    const foreign = await request('POST', `/api/audiences/${audienceId}/exports`, { key: stranger.key });
    const unknown = await request('POST', '/api/audiences/aud_0000000000000000000000/exports', { key: owner.key });
    const empty = await request('POST', `/api/audiences/${audienceId}/exports`, { key: owner.key });

    expect(foreign.status).toBe(404);
    expect(foreign.body).toMatchObject({ success: false, error: 'AUDIENCE_NOT_FOUND' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error: 'AUDIENCE_NOT_FOUND' });
    expect(empty.body.data.rows).toBe(0);
    expect(await (await fetch(empty.body.data.url)).text()).toBe('email,firstName,lastName,phone,status,tags,createdAt,updatedAt\r\n');
  });

  it('lets a member export, as every audience action', async () => {
    const account = await accountWithMember('member');
    const audienceId = await audienceOf(account.key);
    await importContacts(account.accountId, { audienceId, skipDuplicates: false, contacts: [{ email: 'member-export@example.org' }] }, new Date());
    const person = await signIn(account.email);

    const exported = await asPerson(person, 'POST', `/api/audiences/${audienceId}/exports`);

    expect(exported.status).toBe(201);
    expect(exported.body.data.rows).toBe(1);
  });

  it('queues an audience larger than one request exports, from its counter, before reading a contact', async () => {
    const { accountId, key } = await createTestAccount();
    const audienceId = await audienceOf(key);
    await importContacts(accountId, { audienceId, skipDuplicates: false, contacts: [{ email: 'one@example.org' }, { email: 'two@example.org' }] }, new Date());

    expect(await requestExport(accountId, audienceId, new Date(), 1)).toMatchObject({ status: 'queued', rows: 0 });
    expect(await requestExport(accountId, audienceId, new Date(), 2)).toMatchObject({ status: 'ready', rows: 2 });
  });

  it('reads an export back by its id, with a fresh link, and as unknown from another account or audience', async () => {
    const owner = await createTestAccount();
    const stranger = await createTestAccount();
    const audienceId = await audienceOf(owner.key);
    const other = await audienceOf(owner.key, 'Other');
    const exported = (await request('POST', `/api/audiences/${audienceId}/exports`, { key: owner.key })).body.data;

    const read = await request('GET', `/api/audiences/${audienceId}/exports/${exported.id}`, { key: owner.key });
    const foreign = await request('GET', `/api/audiences/${audienceId}/exports/${exported.id}`, { key: stranger.key });
    const elsewhere = await request('GET', `/api/audiences/${other}/exports/${exported.id}`, { key: owner.key });
    const unknown = await request('GET', `/api/audiences/${audienceId}/exports/exp_0000000000000000000000`, { key: owner.key });

    expect(read.status).toBe(200);
    expect(read.body.data).toEqual({ ...exported, url: expect.any(String), expiresAt: expect.any(String) });
    expect(await (await fetch(read.body.data.url)).text()).toBe('email,firstName,lastName,phone,status,tags,createdAt,updatedAt\r\n');
    for (const refused of [foreign, elsewhere, unknown]) {
      expect(refused.status).toBe(404);
      expect(refused.body).toMatchObject({ success: false, error: 'EXPORT_NOT_FOUND' });
    }
  });
});
