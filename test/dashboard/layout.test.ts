/**
 * How pages are laid out, measured in Chromium as a person would see them
 * (docs/dashboard.md): the form builder's two columns at 1440 pixels and one
 * at 375; a webhook's long URL cut on one line with its whole text kept, and
 * its row's buttons side by side; a gap under an endpoint's details; a space
 * before a key's "test" badge; radio rings of one size whether chosen or
 * not; an audience's contact rows one line tall on a phone, however many
 * tags. axe at 375 and 1440 pixels on each page.
 */
import { describe, expect, it } from 'vitest';
import { request } from '../support/api.ts';
import { dashboardAccount, expectAccessible, dashboardFile, freshPage, openPage, signInThroughForm } from './support.ts';

const dashboard = dashboardFile('layout');
const { skip } = dashboard;

const LONG_URL = `http://127.0.0.1:9/hooks/${'postlane-events-'.repeat(6)}end`;

describe.skipIf(skip)('page layout', () => {
  it('lays out the form builder, webhooks, keys and contacts as designed', async () => {
    const account = await dashboardAccount();
    const { key } = account;
    const webhook = (await request('POST', '/api/webhooks', { key, body: { url: LONG_URL, events: ['*'], description: 'CRM sync' } })).body.data;
    await request('POST', '/api/api-keys', { key, body: { name: 'CI', permission: 'full', env: 'test' } });
    const audience = (await request('POST', '/api/audiences', { key, body: { name: 'Tagged' } })).body.data;
    const tags = ['newsletter', 'customer', 'early-access', 'beta-programme', 'conference-2026'];
    await request('POST', '/api/contacts', {
      key,
      body: { email: 'grace.hopper@example.com', firstName: 'Grace', lastName: 'Hopper', audienceId: audience.id, tags },
    });

    const { page, problems } = await freshPage(dashboard);
    await page.goto(`${dashboard.base}/app/forms/new`);
    await signInThroughForm(page, account.admin);
    await page.getByRole('heading', { level: 1, name: 'New form' }).waitFor();
    const title = page.getByLabel('Title', { exact: true });
    const settings = page.getByRole('heading', { level: 2, name: 'On submission' });
    const wide = { title: (await title.boundingBox())!, settings: (await settings.boundingBox())! };
    await page.setViewportSize({ width: 375, height: 900 });
    const narrow = { title: (await title.boundingBox())!, settings: (await settings.boundingBox())! };
    await page.setViewportSize({ width: 1440, height: 900 });
    await expectAccessible(page, 'form builder');

    await openPage(page, dashboard.base, '/webhooks', 'Webhooks');
    const link = page.getByRole('link', { name: LONG_URL });
    const cut = await link.evaluate((element) => ({
      title: element.getAttribute('title'),
      cut: element.scrollWidth > element.clientWidth,
      height: element.clientHeight,
    }));
    const row = page.getByRole('row', { name: new RegExp(LONG_URL) });
    const buttonTops = await Promise.all(
      ['Disable', 'Send test event', 'Delete'].map(async (name) => (await row.getByRole('button', { name: new RegExp(`^${name}`) }).boundingBox())!.y),
    );
    const radios = await page.locator('.choice-option').evaluateAll((options) =>
      options.map((option) => {
        // The tests' TypeScript has no DOM library: the page's globals, untyped.
        const ring = (globalThis as any).getComputedStyle(option, '::before');
        const border = Number.parseFloat(ring.borderTopWidth) * 2;
        const width = Number.parseFloat(ring.width);
        return ring.boxSizing === 'border-box' ? width : width + border;
      }),
    );
    await expectAccessible(page, 'webhooks');

    await openPage(page, dashboard.base, `/webhooks/${webhook.id}`, 'Webhook endpoint');
    const details = (await page.locator('dl.facts').boundingBox())!;
    const firstButton = (await page.getByRole('button', { name: /^Disable/ }).boundingBox())!;

    await openPage(page, dashboard.base, '/api-keys', 'API keys');
    const access = await page.getByRole('row', { name: /^CI / }).getByRole('cell').nth(1).textContent();

    await openPage(page, dashboard.base, `/audiences/${audience.id}`, 'Tagged');
    await page.setViewportSize({ width: 375, height: 900 });
    const contactRow = page.getByRole('row', { name: /grace\.hopper/ });
    const heights = { row: (await contactRow.boundingBox())!.height, header: (await page.getByRole('columnheader', { name: 'Tags' }).boundingBox())!.height };
    await expectAccessible(page, 'an audience');

    // Soft: one run names every layout that went wrong.
    expect.soft(wide.settings.x).toBeGreaterThan(wide.title.x + wide.title.width);
    expect.soft(narrow.settings.y).toBeGreaterThan(narrow.title.y);
    expect.soft(narrow.settings.x).toBeLessThan(narrow.title.x + 1);
    expect.soft(cut).toMatchObject({ title: LONG_URL, cut: true });
    expect.soft(new Set(buttonTops).size).toBe(1);
    expect.soft(radios.length).toBeGreaterThan(1);
    expect.soft(new Set(radios).size).toBe(1);
    expect.soft(firstButton.y - (details.y + details.height)).toBeGreaterThanOrEqual(12);
    expect.soft(access).toBe('Full access test');
    // A header cell is one line of smaller text: a contact's row of one line stays within half as much again.
    expect.soft(heights.row).toBeLessThan(heights.header * 1.5);
    expect(problems).toEqual([]);
  }, 120_000);
});
