/**
 * A contact whose own status stops sends, on the Suppressions page in
 * Chromium (docs/dashboard.md, "Suppressions"): listed with a link to its
 * contact, and lifted there, after which the contact is subscribed again.
 */
import { describe, expect, it } from 'vitest';
import { request } from '../support/api.ts';
import { addContact, uniqueAddress } from '../sending/support.ts';
import { dashboardAccount, expectAccessible, dashboardFile, freshPage, openPage, signInThroughForm } from './support.ts';

const dashboard = dashboardFile('dashboard');
const { skip } = dashboard;

describe.skipIf(skip)("the Suppressions page and contacts' own bounces", () => {
  it('lists a bounced contact with a link to it and lifts it, making the contact subscribed', async () => {
    const account = await dashboardAccount();
    const bounced = uniqueAddress('bounced');
    const contactId = await addContact(account.key, bounced, 'bounced');
    const { page, problems } = await freshPage(dashboard);
    await page.goto(`${dashboard.base}/app/suppressions`);
    await signInThroughForm(page, account.admin);
    await openPage(page, dashboard.base, '/suppressions', 'Suppressions');

    const row = page.getByRole('row', { name: new RegExp(bounced) });
    await row.getByRole('link', { name: "its contact's status" }).waitFor();
    expect(await row.getByRole('link', { name: "its contact's status" }).getAttribute('href')).toContain(`/contacts/${contactId}`);
    await expectAccessible(page, 'suppressions with a contact');
    await page.getByRole('button', { name: `Remove ${bounced}` }).click();
    const dialog = page.getByRole('alertdialog', { name: `Remove ${bounced}?` });
    await dialog.getByText('its bounced or complained contacts become subscribed').waitFor();
    await dialog.getByRole('button', { name: 'Remove from the list' }).click();
    await page.getByText('No address is suppressed.').waitFor();

    expect((await request('GET', `/api/contacts/${contactId}`, { key: account.key })).body.data.status).toBe('subscribed');
    expect(problems).toEqual([]);
  });
});
