/**
 * The form builder's sender and captcha settings and its publish panel in
 * Chromium (docs/dashboard.md, "Forms"): a sender the API refuses (its domain
 * is not verified) is shown beside the Sender field with what was typed kept,
 * a verified one is saved with the captcha setting; the hosted page's address
 * is the form's own `publishedUrl` (FORMS_URL here), read with no list call.
 * Also the Audiences page's link to Suppressions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { config } from '#shared/platform/config.ts';
import { closeBrowsers, skipWithoutChromium } from '../support/browser.ts';
import { request } from '../support/api.ts';
import { runMailWorker } from '../people/support.ts';
import { dashboardAccount, describedText, expectAccessible, freshPage, openDashboard, openPage, signInThroughForm, type Dashboard } from './support.ts';

const skip = skipWithoutChromium('forms settings');

/** Hosted pages on an address of their own, which no page of the dashboard could guess. */
const FORMS_URL = 'https://forms.example.test';

runMailWorker();
let dashboard: Dashboard;
const before = config.FORMS_URL;

beforeAll(async () => {
  if (skip) return;
  // The API server runs in this file's process: its forms answer with this base.
  config.FORMS_URL = FORMS_URL;
  dashboard = await openDashboard();
});

afterAll(async () => {
  config.FORMS_URL = before;
  if (!skip) await closeBrowsers();
});

describe.skipIf(skip)('form builder settings', () => {
  it("shows the API's hosted address, refuses an unverified sender beside its field and saves a verified one with the captcha setting", async () => {
    const account = await dashboardAccount();
    const created = await request('POST', '/api/forms', {
      key: account.key,
      body: { title: 'Settings', published: true, fields: [{ id: 'email', type: 'email', label: 'Email', required: true }] },
    });
    const form = created.body.data;
    const { page, problems } = await freshPage(dashboard);
    const listCalls: string[] = [];
    page.on('request', (sent) => {
      if (new URL(sent.url()).pathname === '/api/forms') listCalls.push(sent.url());
    });
    await page.goto(`${dashboard.base}/app/audiences`);
    await signInThroughForm(page, account.admin);
    await page.getByRole('link', { name: 'Suppressions' }).click();
    await page.getByRole('heading', { level: 1, name: 'Suppressions' }).waitFor();

    await openPage(page, dashboard.base, `/forms/${form.id}`, 'Form');
    const hosted = page.locator('.copy-row', { hasText: 'Hosted page' }).locator('code');
    await expect.poll(() => hosted.textContent()).toBe(`${FORMS_URL}/f/${form.slug}`);
    expect(await page.locator('.copy-row', { hasText: 'Embed on your site' }).locator('code').textContent()).toContain(`src="${FORMS_URL}/f/${form.slug}"`);
    expect(listCalls).toEqual([]);

    const sender = page.getByLabel('Sender', { exact: true });
    await sender.fill('Team <news@not-verified.example>');
    await page.getByText(/^Captcha/).click();
    await page.getByRole('button', { name: 'Save form' }).click();
    await expect.poll(() => describedText(page, 'Sender')).toContain('not-verified.example is not a verified domain');
    expect(await sender.inputValue()).toBe('Team <news@not-verified.example>');
    await expectAccessible(page, 'form builder, sender refused');

    await sender.fill(`Team <${account.from}>`);
    await page.getByRole('button', { name: 'Save form' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    const saved = (await request('GET', `/api/forms/${form.id}`, { key: account.key })).body.data;
    expect(saved.settings).toMatchObject({ from: `Team <${account.from}>`, enableCaptcha: true });
    expect(problems).toEqual([]);
  });
});
