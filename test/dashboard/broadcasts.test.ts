/**
 * Broadcasts in Chromium: composing one to a seeded audience with its
 * recipient count shown as the segment changes, a test copy, sending it and
 * watching its progress reach `sent` with its results (the engine run by the
 * test's drain of the broadcast queue); scheduling another at a time of the
 * person's zone and cancelling it. axe-core at 375 and 1440 pixels on each.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { request } from '../support/api.ts';
import { storedEmails, uniqueAddress } from '../sending/support.ts';
import { createBroadcast, drainBroadcastQueue, mixedAudience } from '../broadcasts/support.ts';
import { dashboardAccount, expectAccessible, dashboardFile, freshPage, signInThroughForm } from './support.ts';

const dashboard = dashboardFile('broadcasts');
const { skip } = dashboard;

async function choose(page: Page, label: string, option: string | RegExp): Promise<void> {
  await page.getByRole('button', { name: new RegExp(`${label}$`) }).click();
  await page.getByRole('option', { name: option }).click();
}

describe.skipIf(skip)('broadcasts in the dashboard', () => {
  it('composes to a seeded audience with its recipient count, sends a test, sends, and shows progress to sent and the results', async () => {
    const account = await dashboardAccount();
    // 20 mixed contacts: 0..19; subscribed ones tagged `a` are the even ones not unsubscribed, pending or bounced.
    const { audienceId, contacts } = await mixedAudience(account, 20);
    const subscribed = contacts.filter((contact) => contact.status === 'subscribed');
    const tagged = subscribed.filter((contact) => contact.tags.includes('a'));
    const { page, problems } = await freshPage(dashboard);
    await page.goto(`${dashboard.base}/app/broadcasts`);
    await signInThroughForm(page, account.admin);
    await page.getByRole('heading', { level: 1, name: 'Broadcasts' }).waitFor();
    await page.getByText('No broadcast yet').waitFor();
    await expectAccessible(page, 'broadcasts, empty');

    await page.getByRole('link', { name: 'New broadcast' }).click();
    await page.getByRole('heading', { level: 1, name: 'New broadcast' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('November news');
    await choose(page, 'Audience', /^Mixed/);
    const count = page.getByTestId('recipient-count');
    await expect.poll(() => count.textContent(), { timeout: 10_000 }).toBe(`${subscribed.length} recipients of ${subscribed.length} subscribed contacts.`);
    await page.getByLabel('Has all of these tags').fill('a');
    await expect.poll(() => count.textContent(), { timeout: 10_000 }).toBe(`${tagged.length} recipients of ${subscribed.length} subscribed contacts.`);
    await page.getByLabel('Subject').fill('Hello {{firstName}}');
    await page.getByLabel('Content').fill('<p>Hi {{firstName}}</p>');
    await page.getByText('Track opens').click();
    await expectAccessible(page, 'a new broadcast');
    await page.getByRole('button', { name: 'Save as draft' }).click();
    await page.waitForURL(/\/app\/broadcasts\/bro_/);
    const id = page.url().split('/').at(-1)!;
    const stored = (await request('GET', `/api/broadcasts/${id}`, { key: account.key })).body.data;
    expect(stored).toMatchObject({
      name: 'November news',
      audienceId,
      segment: { tags: ['a'] },
      from: `news@${account.domain}`,
      tracking: { opens: true, clicks: false },
    });
    await page.getByRole('heading', { level: 1, name: 'November news' }).waitFor();

    const tester = uniqueAddress('tester');
    await page.getByLabel('Test addresses').fill(tester);
    await page.getByRole('button', { name: 'Send a test' }).click();
    await page.getByText('Test sent to 1 of 1 address.').waitFor();
    expect((await storedEmails(account.domain)).some((email) => email.destination.to[0] === tester && email.subject.startsWith('[Test] Hello'))).toBe(true);
    await expectAccessible(page, 'a draft broadcast');

    await page.getByRole('button', { name: 'Send now' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Send', exact: true }).click();
    await page.getByText('sending', { exact: true }).waitFor();
    await drainBroadcastQueue();
    // The page polls while it sends: it reaches `sent` by itself.
    await page.getByText('sent', { exact: true }).waitFor({ timeout: 15_000 });
    await page.getByText(`${tagged.length} sent of ${tagged.length}`).waitFor();
    const results = page.locator('.results');
    await expect.poll(() => results.locator('.result').first().textContent(), { timeout: 10_000 }).toBe(`Sent${tagged.length}`);
    await expectAccessible(page, 'a sent broadcast');

    await page.getByRole('link', { name: 'All broadcasts' }).click();
    await page.getByRole('link', { name: 'November news' }).waitFor();
    await expectAccessible(page, 'broadcasts, listed');
    expect(problems).toEqual([]);
  }, 120_000);

  it('schedules a draft at a time of the person’s zone, converted to UTC, and cancels it after confirming', async () => {
    const account = await dashboardAccount();
    const { audienceId } = await mixedAudience(account, 3);
    const broadcast = await createBroadcast(account, { audienceId, content: '<p>Later</p>', name: 'Later news' });
    const { page, problems } = await freshPage(dashboard);
    await page.goto(`${dashboard.base}/app/broadcasts/${broadcast.id}`);
    await signInThroughForm(page, account.admin);
    await page.getByRole('heading', { level: 1, name: 'Later news' }).waitFor();
    const zone = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
    await page.getByText(`In your time zone, ${zone}`).waitFor();

    // Two days ahead, 10:30 in the page's zone, typed segment by segment (the field's locale is en-US: month, day, year, hour, minute, AM/PM).
    const later = new Date(Date.now() + 2 * 86_400_000);
    const [month, day, year] = [later.getMonth() + 1, later.getDate(), later.getFullYear()];
    const expected = await page.evaluate(([y, m, d]) => new Date(y!, m! - 1, d!, 10, 30).toISOString(), [year, month, day]);
    await page.getByRole('spinbutton', { name: /^month/ }).click();
    await page.keyboard.type(`${String(month).padStart(2, '0')}${String(day).padStart(2, '0')}${year}1030A`);
    await page.getByRole('button', { name: 'Schedule', exact: true }).click();
    await page.getByText('scheduled', { exact: true }).waitFor();
    expect((await request('GET', `/api/broadcasts/${broadcast.id}`, { key: account.key })).body.data).toMatchObject({
      status: 'scheduled',
      scheduledAt: expected,
    });
    await expectAccessible(page, 'a scheduled broadcast');

    await page.getByRole('button', { name: 'Cancel broadcast' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Cancel broadcast' }).click();
    await page.getByText('cancelled', { exact: true }).waitFor();
    expect((await request('GET', `/api/broadcasts/${broadcast.id}`, { key: account.key })).body.data.status).toBe('cancelled');
    expect(problems).toEqual([]);
  }, 60_000);
});
