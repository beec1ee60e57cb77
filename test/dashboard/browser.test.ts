/**
 * The dashboard in Debian's Chromium, against the worker's API server: each
 * page's main flow end to end, as a person does it (by role and label), with
 * the sign-in code read from the SES emulator, and axe-core at 375 and 1440
 * pixels on every page. Skipped, with a message, only on a developer machine
 * without /usr/bin/chromium.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startWebhookWorker } from '#dev/local/webhook-worker.ts';
import { request } from '../support/api.ts';
import { closeBrowsers, skipWithoutChromium } from '../support/browser.ts';
import { eventually } from '../support/eventually.ts';
import { inbox, inboxOf, runMailWorker } from '../people/support.ts';
import { sendPlain, uniqueAddress } from '../sending/support.ts';
import { startReceiver, type Receiver } from '../webhooks/support.ts';
import { dashboardAccount, describedText, expectAccessible, freshPage, openDashboard, openPage, signInThroughForm, type Dashboard } from './support.ts';

const skip = skipWithoutChromium('dashboard');

runMailWorker();
let dashboard: Dashboard;
let receiver: Receiver;
let stopWebhooks: () => Promise<void>;

beforeAll(async () => {
  if (skip) return;
  [dashboard, receiver, { stop: stopWebhooks }] = await Promise.all([openDashboard(), startReceiver(), startWebhookWorker()]);
});

afterAll(async () => {
  if (skip) return;
  await Promise.all([closeBrowsers(), receiver.stop(), stopWebhooks()]);
});

/** A signed-in admin of a fresh account on its Overview. */
async function signedInAdmin(options: Parameters<typeof dashboardAccount>[0] = {}) {
  const account = await dashboardAccount(options);
  const { page, problems } = await freshPage(dashboard);
  await page.goto(`${dashboard.base}/app/`);
  await signInThroughForm(page, account.admin);
  return { account, page, problems };
}

function nav(page: Page) {
  return page.getByRole('navigation', { name: 'Main' });
}

describe.skipIf(skip)('the dashboard in Chromium', () => {
  it('signs in with the mailed code, refusing a wrong one beside the field, and lands on the Overview', async () => {
    const account = await dashboardAccount();
    const { page, problems } = await freshPage(dashboard);

    await page.goto(`${dashboard.base}/app/`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await expectAccessible(page, 'sign-in, address');
    await page.getByLabel('Email address').fill('not an address');
    await page.getByRole('button', { name: 'Email me a sign-in code' }).click();
    await expect.poll(() => describedText(page, 'Email address')).toBe('email must be a valid email address');
    const nothingSent = (await inbox(account.admin)).length;
    await page.getByLabel('Email address').fill(account.admin);
    await page.getByRole('button', { name: 'Email me a sign-in code' }).click();
    await page.getByLabel('Sign-in code').fill('000000');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const codeError = await page.getByRole('alert').textContent();
    await expectAccessible(page, 'sign-in, code');
    const [mail] = await inboxOf(account.admin, 1);
    const code = /\b(\d{6})\b/.exec(mail!.body.text ?? '')![1]!;
    await page.getByLabel('Sign-in code').fill(code);
    await page.getByRole('button', { name: 'Sign in' }).click();

    expect(nothingSent).toBe(0);
    expect(codeError).toBe('The code is wrong or has expired; ask for a new one');
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    expect(await nav(page).getByRole('link').allTextContents()).toEqual([
      'Overview',
      'Emails',
      'Broadcasts',
      'Templates',
      'Audiences',
      'Forms',
      'Domains',
      'API keys',
      'Webhooks',
      'Team',
    ]);
    expect(page.url()).not.toContain(code);
    expect(problems).toEqual([]);
  });

  it("shows the Overview: this month's sends, the chart, the rates within their limits, the latest emails", async () => {
    const account = await dashboardAccount();
    for (const index of [1, 2, 3]) expect((await sendPlain(account, [uniqueAddress(`overview${index}`)])).status).toBe(200);
    const { page, problems } = await freshPage(dashboard);
    await page.goto(`${dashboard.base}/app/`);
    await signInThroughForm(page, account.admin);

    await page.getByRole('heading', { name: 'Latest emails' }).waitFor();
    await page.getByRole('img', { name: /Emails per day over the last 30 days: 3 sent/ }).waitFor();

    expect(await page.getByRole('heading', { name: 'Sent this month' }).locator('xpath=..').getByText('3', { exact: true }).count()).toBe(1);
    expect(await page.getByText('within the limit').count()).toBe(2);
    expect(await page.getByRole('table', { name: 'The latest emails' }).getByRole('row').count()).toBe(4);
    await expectAccessible(page, 'Overview');
    expect(problems).toEqual([]);
  });
});
