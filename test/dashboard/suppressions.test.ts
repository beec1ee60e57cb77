/**
 * The Suppressions page in Chromium (docs/dashboard.md, "Suppressions"):
 * reached from the Emails page's header; addresses added by hand (typed, and
 * read from a CSV file), searched by their start, and a complaint lifted
 * only through its extra confirmation; 0 axe-core violations at both widths,
 * the dialog included.
 */
import { describe, expect, it } from 'vitest';
import { putSuppression } from '#shared/sending/suppression-store.ts';
import { request } from '../support/api.ts';
import { uniqueAddress } from '../sending/support.ts';
import { dashboardAccount, describedText, expectAccessible, dashboardFile, freshPage, signInThroughForm } from './support.ts';

const dashboard = dashboardFile('dashboard');
const { skip } = dashboard;

describe.skipIf(skip)('the Suppressions page', () => {
  it('adds addresses by hand, searches them, and lifts a complaint only after its explicit confirmation', async () => {
    const account = await dashboardAccount();
    const complained = uniqueAddress('complained');
    await putSuppression(account.accountId, complained, 'complained', new Date(), { type: 'email', id: 'eml_0VcC9RP1FCyWYKQT1tcf' });
    const [ann, bob] = [uniqueAddress('ann'), uniqueAddress('bob')];
    const { page, problems } = await freshPage(dashboard);
    await page.goto(`${dashboard.base}/app/emails`);
    await signInThroughForm(page, account.admin);

    await page.getByRole('link', { name: 'Suppressions' }).click();
    await page.getByRole('heading', { level: 1, name: 'Suppressions' }).waitFor();
    await page.getByRole('row', { name: new RegExp(complained) }).waitFor();
    await expectAccessible(page, 'suppressions');

    const lines = page.getByLabel('Addresses, one per line');
    await lines.fill(`${ann}\nnot an address\n${bob}`);
    await page.getByRole('button', { name: 'Add to the list' }).click();
    await expect.poll(() => describedText(page, 'Addresses, one per line')).toContain('Line 2 is not a valid email address');
    await expect.poll(() => lines.inputValue()).toBe(`${ann}\nnot an address\n${bob}`);
    // A spreadsheet's export: a header naming the column, a quoted name with a comma in it.
    const csv = `Name,Email\n"Smith, Ann",${ann}\nBob,${bob}\n`;
    await lines.fill('');
    await page.getByLabel('Or read them from a CSV file').setInputFiles({ name: 'list.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await expect.poll(() => lines.inputValue()).toBe(`${ann}\n${bob}`);
    await page.getByRole('button', { name: 'Add to the list' }).click();
    await page.getByText('2 added; 0 already on the list.').waitFor();
    await page.getByRole('row', { name: new RegExp(bob) }).waitFor();

    await page.getByLabel('Address starts with').fill(ann.split('@')[0]!);
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => page.getByRole('row').count()).toBe(2);
    await page.getByRole('row', { name: new RegExp(ann) }).waitFor();
    expect(page.url()).toContain(`search=${encodeURIComponent(ann.split('@')[0]!)}`);

    await page.getByLabel('Address starts with').fill('complained');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('row', { name: new RegExp(complained) }).waitFor();
    await page.getByRole('button', { name: `Remove ${complained}` }).click();
    const dialog = page.getByRole('alertdialog', { name: `Lift a complaint for ${complained}?` });
    await dialog.waitFor();
    await expectAccessible(page, 'lifting a complaint');
    const lift = dialog.getByRole('button', { name: 'Lift the complaint' });
    expect(await lift.isDisabled()).toBe(true);
    await dialog.getByText('They asked for mail again; I understand the risk').click();
    await lift.click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByText('No suppressed address matches on this page.').waitFor();

    const listed = await request('GET', '/api/suppressions', { key: account.key });
    expect(listed.body.suppressions.map((item: { email: string }) => item.email).sort()).toEqual([ann, bob].sort());
    const removed = await request('GET', '/api/events?type=suppression.removed', { key: account.key });
    expect(removed.body.events.map((event: { data: { email: string; reason: string } }) => [event.data.email, event.data.reason])).toEqual([
      [complained, 'complaint'],
    ]);
    expect(problems).toEqual([]);
    // One flow through sign-in, two forms, a search, a dialog and axe at both widths twice: about 15 s alone, more on a busy machine.
  }, 90_000);
});
