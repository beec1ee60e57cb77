/**
 * The template builder's image, divider and spacer in Chromium: added,
 * edited, refused beside the field the API's schema names, reordered by
 * keyboard, seen in the preview, saved and reopened, removed.
 */
import { describe, expect, it } from 'vitest';
import {
  builderRows as rows,
  dashboardAccount,
  previewSource as srcdoc,
  describedText,
  expectAccessible,
  dashboardFile,
  freshPage,
  signInThroughForm,
} from './support.ts';

const dashboard = dashboardFile('template-components');
const { skip } = dashboard;

describe.skipIf(skip)('image, divider and spacer in the template builder', () => {
  it('adds an image and a divider, refuses an http image beside its field, previews, reorders, saves and removes', async () => {
    const account = await dashboardAccount();
    const { page, problems } = await freshPage(dashboard);
    await page.goto(`${dashboard.base}/app/templates/new`);
    await signInThroughForm(page, account.admin);
    await page.getByRole('heading', { level: 1, name: 'New template' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Logo');
    await page.getByLabel('Subject', { exact: true }).fill('News');

    await page.getByRole('button', { name: 'Add image' }).click();
    await page.getByLabel('Image address').fill('http://cdn.example.com/logo.png');
    await page.getByLabel('Alt text').fill('Acme logo');
    await page.getByLabel('Width (px, optional)').fill('200');
    await page.getByRole('button', { name: 'Add divider' }).click();
    await page.getByLabel('Line colour').fill('#ff0000');
    await page.getByLabel('Thickness (px)').fill('3');
    await page.getByRole('button', { name: 'Add spacer' }).click();
    await page.getByLabel('Height (px)').fill('40');

    await page.getByRole('button', { name: 'Create template' }).click();
    // The refusal opens the image again and is said beside its address; what was typed stays.
    await expect.poll(() => describedText(page, 'Image address')).toContain('must be an https address');
    const keptAddress = await page.getByLabel('Image address').inputValue();
    await page.getByLabel('Image address').fill('https://cdn.example.com/logo.png');
    await expect.poll(() => srcdoc(page)).toContain('data-src="https://cdn.example.com/logo.png" alt="Acme logo" width="200"');
    const preview = await srcdoc(page);
    // The preview loads nothing remote: a box of the image's width with its alt text stands in for it.
    const shown = await page
      .frameLocator('iframe[title="Preview of the email"]')
      .locator('img[alt="Acme logo"]')
      .evaluate((image) => ({ width: image.getBoundingClientRect().width, loaded: image.naturalWidth > 0, src: image.getAttribute('src')!.slice(0, 19) }));
    await expectAccessible(page, 'template builder, an image');

    // By keyboard, through the list's drag handle: the divider goes above the image.
    await page.getByRole('row', { name: /Divider/ }).click();
    await page.getByRole('button', { name: 'Drag Divider: a line' }).focus();
    for (const key of ['Enter', 'ArrowUp', 'ArrowUp', 'Enter']) await page.keyboard.press(key);
    const reordered = await rows(page);
    await page.getByRole('button', { name: 'Create template' }).click();
    await page.waitForURL(/\/app\/templates\/tpl_/);
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();

    await page.reload();
    await page.getByRole('row', { name: /Divider/ }).click();
    const reopened = await rows(page);
    await expectAccessible(page, 'template builder, a divider');
    await page.getByRole('button', { name: 'Remove the divider' }).click();
    const removed = await rows(page);
    await expect.poll(() => srcdoc(page)).not.toContain('bgcolor="#ff0000"');

    expect(keptAddress).toBe('http://cdn.example.com/logo.png');
    expect(preview).toContain(
      '<td height="3" bgcolor="#ff0000" style="height:3px;font-size:0;line-height:0;mso-line-height-rule:exactly;background-color:#ff0000;">&nbsp;</td>',
    );
    expect(preview).toContain('<td height="40" style="height:40px;');
    expect(preview).not.toMatch(/<script/i);
    expect(shown).toEqual({ width: 200, loaded: true, src: 'data:image/svg+xml,' });
    expect(reordered).toEqual(['Divider: a line', 'Image: Acme logo', 'Spacer: 40 px']);
    expect(reopened).toEqual(reordered);
    expect(removed).toEqual(['Image: Acme logo', 'Spacer: 40 px']);
    expect(problems).toEqual([]);
  });
});
