/**
 * The Audiences pages in Chromium, against the worker's API server: creating
 * an audience, its statistics, finding a contact by search, status and tag,
 * changing its tags and custom fields, deleting it, renaming and deleting the
 * audience, and exporting it to CSV through the presigned link. Contacts are
 * seeded through the import service, not by clicks. axe-core at 375 and 1440
 * pixels on every page.
 */
import { describe, expect, it } from 'vitest';
import { addMember } from '#shared/accounts/members.ts';
import { importContacts } from '#shared/contacts/import.ts';
import { getContact } from '#shared/contacts/service.ts';
import { uniqueAddress } from '../sending/support.ts';
import { dashboardAccount, describedText, expectAccessible, dashboardFile, freshPage, signInThroughForm } from './support.ts';

const dashboard = dashboardFile('dashboard audiences');
const { skip } = dashboard;

/** A signed-in member (the role every audience page is for) of a fresh account. */
async function signedInMember() {
  const account = await dashboardAccount();
  const member = uniqueAddress('member');
  await addMember(account.accountId, { email: member, role: 'member' }, { type: 'operator', id: 'test' }, new Date());
  const { page, problems } = await freshPage(dashboard);
  await page.goto(`${dashboard.base}/app/audiences`);
  await signInThroughForm(page, member);
  await page.getByRole('heading', { level: 1, name: 'Audiences' }).waitFor();
  return { account, page, problems };
}

/** 60 contacts: every tenth tagged `vip`, every fifth unsubscribed, one named Ada Lovelace. */
function seedEntries() {
  return Array.from({ length: 60 }, (_, index) => ({
    email: `person${index}@example.org`,
    ...(index === 7 ? { firstName: 'Ada', lastName: 'Lovelace' } : { firstName: `Person ${index}` }),
    status: index % 5 === 0 ? ('unsubscribed' as const) : ('subscribed' as const),
    tags: index % 10 === 0 ? ['vip'] : [],
    customFields: index === 7 ? { plan: 'pro', seats: 3 } : {},
  }));
}

describe.skipIf(skip)('the Audiences pages in Chromium', () => {
  it('creates an audience, shows its statistics, finds, edits and deletes a contact, renames and deletes the audience', async () => {
    const { account, page, problems } = await signedInMember();
    await expectAccessible(page, 'audiences, empty');
    await page.getByRole('button', { name: 'Create audience' }).click();
    await expect.poll(() => describedText(page, 'Name')).toBe('name is required');
    await page.getByLabel('Name').fill('Newsletter');
    await page.getByLabel('Description').fill('Monthly product news');
    await page.getByRole('button', { name: 'Create audience' }).click();
    await page.getByRole('heading', { level: 1, name: 'Newsletter' }).waitFor();
    const audienceId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
    const imported = await importContacts(account.accountId, { audienceId, contacts: seedEntries(), skipDuplicates: false }, new Date());
    expect(imported.imported).toBe(60);

    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Newsletter' }).waitFor();
    await page.getByText('60 contacts', { exact: true }).waitFor();
    const cards = await page.locator('.card').allInnerTexts();
    await expectAccessible(page, 'an audience');
    await page.screenshot({ path: '/tmp/audience-1440.png', fullPage: true });

    await page.getByRole('button', { name: 'Export to CSV' }).click();
    await page.getByRole('status').filter({ hasText: '60 contacts exported.' }).waitFor();
    const link = await page.getByRole('link', { name: 'Download the CSV' }).getAttribute('href');
    const csv = await (await fetch(link!)).text();
    await expectAccessible(page, 'an audience, exported');

    await page.getByLabel('Search').fill('lovelace');
    await page.getByRole('button', { name: 'Find' }).click();
    await page.getByText('1 matching').waitFor();
    const found = await page
      .getByRole('table', { name: /Contacts of the audience/ })
      .getByRole('row')
      .count();
    await page.getByLabel('Search').fill('');
    await page.getByLabel('Tag').fill('vip');
    await page.getByRole('button', { name: 'Find' }).click();
    await page.getByText('6 matching').waitFor();
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByText('60 contacts', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('page')).toBe('2');

    await page.goto(`${dashboard.base}/app/audiences/${audienceId}?search=ada`);
    await page.getByRole('link', { name: 'person7@example.org' }).click();
    await page.getByRole('heading', { level: 1, name: 'person7@example.org' }).waitFor();
    await expectAccessible(page, 'a contact');
    await page.screenshot({ path: '/tmp/contact-1440.png', fullPage: true });
    await page.setViewportSize({ width: 375, height: 900 });
    await page.screenshot({ path: '/tmp/contact-375.png', fullPage: true });
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.getByLabel('Tags').fill('vip, early, vip');
    await page.getByLabel('Field 1 value').fill('team');
    await page.getByRole('button', { name: 'Remove field 2' }).click();
    await page.getByRole('button', { name: 'Add a field' }).click();
    await page.getByLabel('Field 2 name').fill('source');
    await page.getByLabel('Field 2 value').fill('import');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    const contactId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
    const edited = await getContact(account.accountId, contactId);

    await page.getByRole('button', { name: 'Delete contact' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Delete contact' }).click();
    await page.getByRole('heading', { level: 1, name: 'Newsletter' }).waitFor();
    await page.getByText('59 contacts', { exact: true }).waitFor();

    await page.getByLabel('Name', { exact: true }).fill('Newsletter (EN)');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Newsletter (EN)' }).waitFor();
    await page.getByRole('button', { name: 'Delete audience' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Delete audience' }).click();
    await page.getByRole('heading', { level: 1, name: 'Audiences' }).waitFor();
    await expect.poll(() => page.getByRole('link', { name: 'Newsletter (EN)' }).count()).toBe(0);

    expect(cards.map((card) => card.replace(/\s+/g, ' ').trim())).toEqual([
      'Contacts 60 New: under 30 days old',
      'Subscribed 48',
      'Unsubscribed 12',
      'Pending 0',
      'Bounced 0',
      'Complained 0',
    ]);
    expect(found).toBe(2);
    expect(csv.split('\r\n')).toHaveLength(62);
    expect(csv).toContain('person7@example.org,Ada,Lovelace,,subscribed,,');
    expect({ tags: edited.tags, customFields: edited.customFields }).toEqual({ tags: ['vip', 'early'], customFields: { plan: 'team', source: 'import' } });
    expect(problems).toEqual([]);
  }, 120_000);
});
