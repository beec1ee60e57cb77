/**
 * The Templates pages in Chromium, as a member (who has no API key) uses
 * them: building a template of three components, reordering one by
 * keyboard, styling it, seeing the preview follow, saving and reopening it,
 * sending a test to oneself (found in the SES emulator), deleting it.
 */
import { describe, expect, it } from 'vitest';
import { addMember } from '#shared/accounts/members.ts';
import { inboxOf } from '../people/support.ts';
import { uniqueAddress } from '../sending/support.ts';
import {
  builderRows as rows,
  dashboardAccount,
  previewFrame as frame,
  previewSource as srcdoc,
  describedText,
  expectAccessible,
  dashboardFile,
  freshPage,
  openPage,
  signInThroughForm,
} from './support.ts';

const dashboard = dashboardFile('templates');
const { skip } = dashboard;

describe.skipIf(skip)('templates in the dashboard', () => {
  it('builds, reorders by keyboard, styles, previews, saves, reopens, sends a test and deletes a template', async () => {
    const account = await dashboardAccount();
    const member = uniqueAddress('member');
    await addMember(account.accountId, { email: member, role: 'member' }, { type: 'operator', id: 'test' }, new Date());
    const { page, problems } = await freshPage(dashboard);
    await page.goto(`${dashboard.base}/app/templates`);
    await signInThroughForm(page, member);
    await page.getByRole('heading', { level: 1, name: 'Templates' }).waitFor();
    await page.getByText('No template yet').waitFor();
    await expectAccessible(page, 'templates, empty');

    await page.getByRole('link', { name: 'New template' }).click();
    await page.getByRole('heading', { level: 1, name: 'New template' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Welcome');
    await page.getByLabel('Subject', { exact: true }).fill('Hello {{firstName}}');
    await page.getByRole('button', { name: 'Add heading' }).click();
    await page.getByLabel('Heading text').fill('Welcome aboard');
    await page.getByRole('button', { name: 'Add text' }).click();
    await page.getByLabel('Text', { exact: true }).fill('Hi {{firstName}}, glad you are here.');
    await page.getByRole('button', { name: 'Add button' }).click();
    await page.getByLabel('Button label').fill('Start');
    await page.getByLabel('Button address').fill('https://example.com/start');
    // By keyboard, through the list's drag handle: Enter picks the button up, each ArrowUp goes one drop place up, Enter drops it.
    await page.getByRole('button', { name: 'Drag Button: Start' }).focus();
    for (const key of ['Enter', 'ArrowUp', 'ArrowUp', 'Enter']) await page.keyboard.press(key);
    const reordered = await rows(page);
    // And through the chosen component's buttons: at the top, "Move up" is disabled and focus is on "Move down".
    await page.getByRole('button', { name: 'Move up: the button' }).focus();
    await page.keyboard.press('Enter');
    const movedUp = await rows(page);
    await page.keyboard.press('Enter');
    const movedBack = await rows(page);
    await page.getByLabel('Background colour').fill('#fef3c7');
    await page.getByLabel('Width (px)').fill('480');
    await page.getByLabel('firstName', { exact: true }).fill('Ada');

    await expect.poll(() => srcdoc(page)).toContain('Hi Ada, glad you are here.');
    const preview = await srcdoc(page);
    const sandbox = await frame(page).getAttribute('sandbox');
    await page.getByRole('radio', { name: 'Phone (375 px)' }).click();
    const phoneWidth = (await frame(page).boundingBox())?.width;
    await expectAccessible(page, 'template builder');

    await page.getByLabel('Width (px)').fill('12');
    await page.getByRole('button', { name: 'Create template' }).click();
    await expect.poll(() => describedText(page, 'Width (px)')).toContain('must be a whole number from 320 to 1200');
    const keptWidth = await page.getByLabel('Width (px)').inputValue();
    await page.getByLabel('Width (px)').fill('480');
    await page.getByRole('button', { name: 'Create template' }).click();
    await page.waitForURL(/\/app\/templates\/tpl_/);
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();

    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Template' }).waitFor();
    const reopened = {
      name: await page.getByLabel('Name', { exact: true }).inputValue(),
      subject: await page.getByLabel('Subject', { exact: true }).inputValue(),
      background: await page.getByLabel('Background colour').inputValue(),
      width: await page.getByLabel('Width (px)').inputValue(),
      rows: await rows(page),
    };
    await page.getByLabel('firstName', { exact: true }).fill('Ada');
    await page.getByLabel('From', { exact: true }).fill(account.from);
    await page.getByRole('button', { name: 'Send a test to yourself' }).click();
    await page.getByText(`Sent to ${member}.`).waitFor();
    const [test] = await inboxOf(member, 1, 'Hello Ada');

    await openPage(page, dashboard.base, '/templates', 'Templates');
    await page
      .getByRole('row', { name: /Welcome/ })
      .getByText('Hello {{firstName}}')
      .waitFor();
    await expectAccessible(page, 'templates, one');
    await page.getByRole('button', { name: 'Delete template Welcome' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Delete template' }).click();
    await page.getByText('No template yet').waitFor();

    expect(reordered).toEqual(['Heading: Welcome aboard', 'Button: Start', 'Text: Hi {{firstName}}, glad you are here.']);
    expect(movedUp).toEqual(['Button: Start', 'Heading: Welcome aboard', 'Text: Hi {{firstName}}, glad you are here.']);
    expect(movedBack).toEqual(reordered);
    expect(preview).toContain('background-color:#fef3c7');
    expect(preview).toContain('max-width:480px');
    expect(preview).toMatch(/<head[^>]*><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">/);
    expect(sandbox).toBe('');
    expect(phoneWidth).toBe(375);
    expect(keptWidth).toBe('12');
    expect(reopened).toEqual({ name: 'Welcome', subject: 'Hello {{firstName}}', background: '#fef3c7', width: '480', rows: reordered });
    expect(test!.from).toContain(account.from);
    expect(test!.body.html).toContain('Hi Ada, glad you are here.');
    expect(test!.body.html!.indexOf('Start')).toBeLessThan(test!.body.html!.indexOf('Hi Ada'));
    expect(problems).toEqual([]);
  });
});
