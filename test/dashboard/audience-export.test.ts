/**
 * The audience page's export in Chromium when the export is queued: the
 * button shows "Preparing export…" while the page polls the export, then
 * offers the download; a failed export says so. The synchronous limit is
 * lowered to 2 contacts for this file (EXPORT_SYNC_MAX_CONTACTS, read by
 * shared/platform/config.ts), so three seeded contacts are queued rather than
 * 25,001; the worker starts only once the page shows it is waiting, and the
 * file's export queue hands a failed job back after 2 s.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

await vi.hoisted(async () => {
  const [{ randomUUID }, { createRetryQueues }, { inject }, { EXPORT_MAX_RECEIVES }] = await Promise.all([
    import('node:crypto'),
    import('#dev/local/sqs.ts'),
    import('vitest'),
    import('#shared/contacts/export-policy.ts'),
  ]);
  process.env.EXPORT_SYNC_MAX_CONTACTS = '2';
  const name = `exports-dashboard-${randomUUID()}`;
  process.env.EXPORT_QUEUE_URL = (await createRetryQueues(inject('sqsEndpoint'), name, EXPORT_MAX_RECEIVES, { visibilityTimeoutSeconds: 2 })).queueUrl;
});

import { startExportWorker } from '#dev/local/export-worker.ts';
import { currentHandler } from '#dev/local/invocation.ts';
import { addMember } from '#shared/accounts/members.ts';
import { importContacts } from '#shared/contacts/import.ts';
import { runMailWorker } from '../people/support.ts';
import { uniqueAddress } from '../sending/support.ts';
import { closeBrowsers, skipWithoutChromium } from '../support/browser.ts';
import { request } from '../support/api.ts';
import { setFaultHook } from '../support/dynamo-faults.ts';
import { dashboardAccount, expectAccessible, freshPage, openDashboard, signInThroughForm, type Dashboard } from './support.ts';

const skip = skipWithoutChromium('dashboard audience export');
/** The worker's module, as the local poller names its invocations (dev/local/export-worker.ts). */
const EXPORT_WORKER_HANDLER = 'audiences/export-work';

runMailWorker();
let dashboard: Dashboard;
let stopWorker: (() => Promise<void>) | undefined;

beforeAll(async () => {
  if (skip) return;
  dashboard = await openDashboard();
});

afterEach(async () => {
  setFaultHook(undefined);
  await stopWorker?.();
  stopWorker = undefined;
});

afterAll(async () => {
  if (skip) return;
  await closeBrowsers();
});

/** A signed-in member on the page of a fresh audience of three contacts, past this file's synchronous limit. */
async function audiencePage() {
  const account = await dashboardAccount();
  const member = uniqueAddress('member');
  await addMember(account.accountId, { email: member, role: 'member' }, { type: 'operator', id: 'test' }, new Date());
  const audienceId = (await request('POST', '/api/audiences', { key: account.key, body: { name: 'Large list' } })).body.data.id as string;
  const contacts = ['ada', 'bob', 'cy'].map((name) => ({ email: uniqueAddress(name) }));
  await importContacts(account.accountId, { audienceId, contacts, skipDuplicates: false }, new Date());
  const { page, problems } = await freshPage(dashboard);
  await page.goto(`${dashboard.base}/app/audiences/${audienceId}`);
  await signInThroughForm(page, member);
  await page.getByRole('heading', { level: 1, name: 'Large list' }).waitFor();
  return { audienceId, contacts, page, problems };
}

describe.skipIf(skip)('a queued audience export in Chromium', () => {
  it('shows that the export is being prepared, polls it, then offers the download', async () => {
    const { contacts, page, problems } = await audiencePage();

    await page.getByRole('button', { name: 'Export to CSV' }).click();
    await page.getByRole('status').filter({ hasText: 'Preparing export…' }).waitFor();
    const waiting = await page.getByRole('button', { name: 'Preparing export…' }).isVisible();
    await expectAccessible(page, 'an audience, export being prepared');
    await page.screenshot({ path: '/tmp/audience-export-preparing.png' });
    stopWorker = (await startExportWorker()).stop;
    await page.getByRole('status').filter({ hasText: '3 contacts exported.' }).waitFor();
    const link = await page.getByRole('link', { name: 'Download the CSV' }).getAttribute('href');
    const csv = await (await fetch(link!)).text();
    await expectAccessible(page, 'an audience, queued export ready');

    expect(waiting).toBe(true);
    expect(
      csv
        .split('\r\n')
        .slice(1, -1)
        .map((line) => line.split(',')[0]),
    ).toEqual(contacts.map((contact) => contact.email));
    expect(await page.getByRole('button', { name: 'Export to CSV' }).isVisible()).toBe(true);
    expect(problems).toEqual([]);
  });

  it('says so when the export failed', async () => {
    const { audienceId, page, problems } = await audiencePage();
    // The worker's reads only: the page's own list of the audience's contacts must still load.
    setFaultHook((command, input) =>
      command === 'QueryCommand' && currentHandler() === EXPORT_WORKER_HANDLER && JSON.stringify(input.ExpressionAttributeValues ?? {}).includes(audienceId)
        ? { error: Object.assign(new Error('the table is unreachable'), { name: 'InternalServerError' }) }
        : undefined,
    );
    stopWorker = (await startExportWorker()).stop;

    await page.getByRole('button', { name: 'Export to CSV' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'The export failed' });
    await alert.waitFor({ timeout: 20_000 });
    await expectAccessible(page, 'an audience, export failed');
    await page.screenshot({ path: '/tmp/audience-export-failed.png' });

    expect(await alert.textContent()).toBe('The export failed at each of its 3 attempts. Export again.');
    expect(await page.getByRole('link', { name: 'Download the CSV' }).count()).toBe(0);
    expect(problems).toEqual([]);
  });
});
