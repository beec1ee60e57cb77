/**
 * The Forms pages in Chromium, as a member (who has no API key) uses them:
 * building a form with a required text field and a select with options (a
 * repeated option refused beside its box, nothing typed lost), publishing it,
 * submitting the hosted page, finding the submission in the table, filtering
 * by day, exporting the CSV (a formula neutralised), the list's numbers, and
 * deleting the form after confirmation.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { addMember } from '#shared/accounts/members.ts';
import { uniqueAddress } from '../sending/support.ts';
import { dashboardAccount, describedText, expectAccessible, dashboardFile, freshPage, openPage, signInThroughForm } from './support.ts';

const dashboard = dashboardFile('forms');
const { skip } = dashboard;

const fieldBox = (page: Page, index: number) => page.locator('li.form-field-editor').nth(index);

async function addField(page: Page, type: string): Promise<void> {
  await page.getByRole('button', { name: /New field's type/ }).click();
  await page.getByRole('option', { name: type, exact: true }).click();
  await page.getByRole('button', { name: 'Add field' }).click();
}

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

describe.skipIf(skip)('forms in the dashboard', () => {
  it('builds, publishes, takes a submission on the hosted page, filters and exports it, and deletes the form', async () => {
    const account = await dashboardAccount();
    const member = uniqueAddress('member');
    await addMember(account.accountId, { email: member, role: 'member' }, { type: 'operator', id: 'test' }, new Date());
    // `problems` is a getter: read at the end, not destructured here (that would copy the empty list of the start).
    const session = await freshPage(dashboard);
    const { page } = session;
    await page.goto(`${dashboard.base}/app/forms`);
    await signInThroughForm(page, member);
    await page.getByRole('heading', { level: 1, name: 'Forms' }).waitFor();
    await page.getByText('No form yet').waitFor();
    await expectAccessible(page, 'forms, empty');

    await page.getByRole('link', { name: 'New form' }).click();
    await page.getByRole('heading', { level: 1, name: 'New form' }).waitFor();
    await page.getByLabel('Title', { exact: true }).fill('Feedback');
    await addField(page, 'Text');
    await fieldBox(page, 1).getByLabel('Label').fill('Your name');
    await fieldBox(page, 1).getByLabel('Key').fill('name');
    await fieldBox(page, 1).getByText('Required', { exact: true }).click();
    await addField(page, 'Select');
    await fieldBox(page, 2).getByLabel('Label').fill('Plan');
    await fieldBox(page, 2).getByLabel('Key').fill('plan');
    await fieldBox(page, 2).getByLabel('Options').fill('Free\nPro\nFree');
    // The text field moves to the top by its own button; the starting email field goes.
    await page.getByRole('button', { name: 'Move up: Your name' }).click();
    const order = await page.locator('li.form-field-editor h3').allTextContents();
    await page.getByRole('button', { name: 'Remove: Email' }).click();
    await page.getByText(/^Published/).click();
    await expectAccessible(page, 'form builder');

    await page.getByRole('button', { name: 'Create form' }).click();
    await expect.poll(() => describedText(page, 'Options')).toContain('must not repeat an option');
    const keptOptions = await page.getByLabel('Options').inputValue();
    await page.getByLabel('Options').fill('Free\nPro');
    // A rule only the API checks (double opt-in needs an audience): its refusal shows beside the switch it names.
    await page.getByText(/^Double opt-in/).click();
    await page.getByRole('button', { name: 'Create form' }).click();
    await expect.poll(() => describedText(page, 'Double opt-in (ask the submitter to confirm by email)')).toContain('needs a linked audience');
    const keptTitle = await page.getByLabel('Title', { exact: true }).inputValue();
    await page.getByText(/^Double opt-in/).click();
    await page.getByRole('button', { name: 'Create form' }).click();
    await page.waitForURL(/\/app\/forms\/frm_/);
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    const formId = new URL(page.url()).pathname.split('/').pop()!;
    const hosted = (await page.locator('.copy-row', { hasText: 'Hosted page' }).locator('code').textContent())!;
    const snippet = (await page.locator('.copy-row', { hasText: 'Embed on your site' }).locator('code').textContent())!;
    await expectAccessible(page, 'form builder, published');

    await page.goto(hosted);
    await page.getByLabel('Your name').fill('=HYPERLINK("http://evil.example")');
    await page.getByLabel('Plan').selectOption('Pro');
    await page.getByRole('button', { name: 'Submit' }).click();
    await page.getByText('Thank you! Your submission has been received.').waitFor();

    await openPage(page, dashboard.base, `/forms/${formId}/submissions`, 'Submissions: Feedback');
    const row = page.getByRole('row').filter({ hasText: 'Pro' });
    await row.waitFor();
    const cells = await row.getByRole('cell').allTextContents();
    await expectAccessible(page, 'form submissions');
    await page.getByLabel('From date').fill(day(1));
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('No submission in these days.').waitFor();
    await page.getByLabel('From date').fill(day(-1));
    await page.getByLabel('To date').fill(day(1));
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await row.waitFor();
    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export to CSV' }).click();
    await page.getByText('1 submission exported.').waitFor();
    const download = await downloading;
    const csv = await readFile((await download.path())!, 'utf8');

    await openPage(page, dashboard.base, '/forms', 'Forms');
    const listed = page.getByRole('row', { name: /Feedback/ });
    await listed.getByText('Published').waitFor();
    const numbers = await listed.getByRole('cell').allTextContents();
    await expectAccessible(page, 'forms, one');
    await page.getByRole('button', { name: 'Delete form Feedback' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Delete form' }).click();
    await page.getByText('No form yet').waitFor();

    expect(order).toEqual(['1. Text', '2. Email', '3. Select']);
    expect(keptOptions).toBe('Free\nPro\nFree');
    expect(keptTitle).toBe('Feedback');
    expect(hosted).toMatch(/\/f\/feedback(?:-[a-z0-9]+)?$/);
    expect(snippet).toBe(`<iframe src="${hosted}" title="Feedback" style="width:100%;min-height:640px;border:0" loading="lazy"></iframe>`);
    expect(cells).toEqual(['=HYPERLINK("http://evil.example")', 'Pro']);
    expect(download.suggestedFilename()).toMatch(/^feedback.*-submissions\.csv$/);
    const lines = csv.trimEnd().split('\r\n');
    expect(lines[0]).toBe('id,createdAt,name,plan');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/^sub_\w+,\d{4}-\d{2}-\d{2}T[\d:.]+Z,"'=HYPERLINK\(""http:\/\/evil\.example""\)",Pro$/);
    expect(numbers.slice(0, 5)).toEqual(['Published', '1', '1', '100%', expect.any(String)]);
    expect(session.problems).toEqual([]);
  });
});
