/**
 * Broadcasts in Chromium, the parts around sending: the list a page at a
 * time, deleting a draft after confirming, and a sent broadcast's results
 * counting a recipient who unsubscribed through its message. Seeded through
 * the services and the engine; axe-core at 375 and 1440 pixels.
 */
import { describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { createBroadcast as insertBroadcast } from '#shared/broadcasts/service.ts';
import { createBroadcastBody } from '#shared/broadcasts/schema.ts';
import { request } from '../support/api.ts';
import { storedEmails } from '../sending/support.ts';
import { createBroadcast, drainBroadcastQueue, mixedAudience, readBroadcast, sendWith } from '../broadcasts/support.ts';
import { dashboardAccount, expectAccessible, dashboardFile, freshPage, signInThroughForm } from './support.ts';

const dashboard = dashboardFile('broadcast results');
const { skip } = dashboard;

/** The list's page size (dashboard/src/pages/broadcasts/page.tsx). */
const PAGE_SIZE = 50;

describe.skipIf(skip)('broadcasts around sending, in the dashboard', () => {
  it('pages the list, deletes a draft after confirming, and shows who unsubscribed through a sent one', async () => {
    const account = await dashboardAccount();
    const { audienceId, contacts } = await mixedAudience(account, 2);
    // With the sent one below, a page and one more; a second apart so the newest-first order is known: "Draft 0" is the oldest.
    const start = Date.now() - 3_600_000;
    await Promise.all(
      Array.from({ length: PAGE_SIZE }, (_, index) =>
        insertBroadcast(
          account.accountId,
          v.parse(createBroadcastBody, { name: `Draft ${index}`, audienceId, from: account.from, subject: 'S', content: '<p>x</p>' }),
          new Date(start + index * 1_000),
        ),
      ),
    );
    // The newest: sent by the engine, and its first recipient leaves by the link in the message.
    const sent = await createBroadcast(account, { audienceId, name: 'Sent news', content: '<p>News</p>' });
    await sendWith(account.key, sent.id);
    await drainBroadcastQueue();
    expect((await readBroadcast(account.key, sent.id)).status).toBe('sent');
    const message = (await storedEmails(account.domain)).find((email) => email.destination.to[0] === contacts[0]!.email)!;
    const link = /href="([^"]*\/unsubscribe\/[^"]+)"/.exec(message.body.html!)![1]!;
    expect(
      (
        await request('POST', new URL(link).pathname, {
          rawBody: 'List-Unsubscribe=One-Click',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        })
      ).status,
    ).toBe(200);

    const { page, problems } = await freshPage(dashboard);
    await page.goto(`${dashboard.base}/app/broadcasts/${sent.id}`);
    await signInThroughForm(page, account.admin);
    await page.getByRole('heading', { level: 1, name: 'Sent news' }).waitFor();
    const unsubscribed = page.locator('.result', { hasText: 'Unsubscribed' });
    await expect.poll(() => unsubscribed.textContent(), { timeout: 10_000 }).toBe('Unsubscribed1 50%');
    // Sent without a schedule: the facts say so, rather than that it was "never" scheduled.
    expect(await page.locator('.facts div', { hasText: 'Scheduled' }).locator('dd').textContent()).toBe('no: sent when asked');
    await expectAccessible(page, 'a sent broadcast with an unsubscribe');

    await page.getByRole('link', { name: 'All broadcasts' }).click();
    const pager = page.getByRole('navigation', { name: 'Pages of broadcasts' });
    await pager.getByText('Page 1 of 2').waitFor();
    await page.getByRole('link', { name: 'Sent news' }).waitFor();
    expect(await page.getByRole('link', { name: 'Draft 0', exact: true }).count()).toBe(0);
    await pager.getByRole('button', { name: 'Older' }).click();
    await pager.getByText('Page 2 of 2').waitFor();
    await expectAccessible(page, 'broadcasts, page 2');

    await page.getByRole('link', { name: 'Draft 0', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Draft 0' }).waitFor();
    await page.getByRole('button', { name: 'Delete broadcast Draft 0' }).click();
    const dialog = page.getByRole('alertdialog');
    await dialog.getByText('Nothing has been sent').waitFor();
    await expectAccessible(page, 'deleting a draft');
    await dialog.getByRole('button', { name: 'Delete broadcast' }).click();
    await page.waitForURL(/\/app\/broadcasts$/);
    // One page left, once the list is read again: no pager.
    await expect.poll(() => pager.count(), { timeout: 10_000 }).toBe(0);
    await page.getByRole('link', { name: 'Draft 1', exact: true }).waitFor();
    const left = await request('GET', '/api/broadcasts?limit=100', { key: account.key });
    expect(left.body.broadcasts.map((broadcast: { name: string }) => broadcast.name)).not.toContain('Draft 0');
    expect(left.body.broadcasts).toHaveLength(PAGE_SIZE);
    expect(problems).toEqual([]);
  }, 120_000);
});
