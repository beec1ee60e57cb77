/**
 * The Overview's quota meter in Chromium (issue 30): this month's emails
 * against the account's monthly quota, as GET /api/stats answers them, a
 * warning near the quota and another once it is used up; the page loads
 * with at most 3 API calls, and a person still uses the dashboard once the
 * quota is used up. axe-core at 375 and 1440 pixels in each state.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { sendPlain, uniqueAddress } from '../sending/support.ts';
import { dashboardAccount, expectAccessible, dashboardFile, freshPage, signInThroughForm } from './support.ts';

const dashboard = dashboardFile('dashboard Overview');
const { skip } = dashboard;

/** Loads the Overview again and answers the API paths the load asked for, once the meter and the latest emails are shown. */
async function reloadOverview(page: Page): Promise<string[]> {
  const calls: string[] = [];
  const record = (request: { url(): string }) => {
    const { pathname } = new URL(request.url());
    if (pathname.startsWith('/api/')) calls.push(pathname);
  };
  page.on('request', record);
  await page.reload();
  await page.getByRole('meter', { name: 'Monthly quota' }).waitFor();
  await page.getByRole('table', { name: 'The latest emails' }).waitFor();
  page.off('request', record);
  return calls;
}

describe.skipIf(skip)("the Overview's quota", () => {
  it('shows the month against the quota as a meter, warns near it and when it is used up, in at most 3 API calls', async () => {
    const account = await dashboardAccount({ quota: 5 });
    for (const index of [1, 2, 3, 4]) expect((await sendPlain(account, [uniqueAddress(`quota${index}`)])).status).toBe(200);
    const { page, problems } = await freshPage(dashboard);
    await page.goto(`${dashboard.base}/app/`);
    await signInThroughForm(page, account.admin);
    // The first load's own calls, still on their way when sign-in returns, must not be counted as the reload's.
    await page.getByRole('meter', { name: 'Monthly quota' }).waitFor();
    await page.getByRole('table', { name: 'The latest emails' }).waitFor();

    const calls = await reloadOverview(page);
    const meter = page.getByRole('meter', { name: 'Monthly quota' });
    expect(calls.toSorted()).toEqual(['/api/emails', '/api/session', '/api/stats']);
    expect(await meter.getAttribute('aria-valuetext')).toBe('4 of 5 emails (80%)');
    expect(await page.getByRole('alert').filter({ hasText: 'of the monthly quota is used' }).textContent()).toMatch(
      /^80% of the monthly quota is used: once all 5 are, sends are refused until [\w ]+\.$/,
    );
    await expectAccessible(page, 'Overview near the quota');

    expect((await sendPlain(account, [uniqueAddress('last')])).status).toBe(200);
    expect((await sendPlain(account, [uniqueAddress('refused')])).status).toBe(403);
    await reloadOverview(page);

    expect(await meter.getAttribute('aria-valuetext')).toBe('5 of 5 emails (100%)');
    expect(await page.getByText('quota used up', { exact: true }).count()).toBe(1);
    expect(await page.getByRole('alert').filter({ hasText: 'is used up' }).textContent()).toMatch(
      /^The monthly quota of 5 emails is used up: sends are refused \(QUOTA_EXCEEDED\) and broadcasts pause until [\w ]+\.$/,
    );
    await expectAccessible(page, 'Overview with the quota used up');
    expect(problems).toEqual([]);
  });
});
