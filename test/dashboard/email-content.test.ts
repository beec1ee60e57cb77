/**
 * An email's content on its page, in Chromium: the HTML in a frame that runs
 * no script and loads nothing (an <img> and a script aimed at a local server
 * that counts requests), the text part and the headers in their tabs, and
 * axe-core at both widths.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from '../support/api.ts';
import { closeBrowsers, skipWithoutChromium } from '../support/browser.ts';
import { runMailWorker } from '../people/support.ts';
import { addContact, uniqueAddress } from '../sending/support.ts';
import { dashboardAccount, expectAccessible, freshPage, openDashboard, signInThroughForm, type Dashboard } from './support.ts';

const skip = skipWithoutChromium('email content');

runMailWorker();
let dashboard: Dashboard;
let probe: Server;
let probeUrl: string;
const probed: string[] = [];

beforeAll(async () => {
  if (skip) return;
  probe = createServer((req, res) => {
    probed.push(req.url ?? '');
    res.end('');
  });
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  probeUrl = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
  dashboard = await openDashboard();
});

afterAll(async () => {
  if (skip) return;
  probe.close();
  await closeBrowsers();
});

/** What Chromium says when the frame refuses what the email asks for: the sandbox's and the CSP's refusals, nothing else. */
const REFUSAL = /Blocked script execution in 'about:srcdoc'|Content Security Policy/;

describe.skipIf(skip)("an email's content on its page", () => {
  it('shows the HTML in a frame that runs none of its script and loads none of its images, the text part, and the headers', async () => {
    const account = await dashboardAccount();
    const ann = uniqueAddress('ann');
    const html = [
      '<p id="verdict">The script did not run</p>',
      `<img src="${probeUrl}/probe.gif" alt="A remote image">`,
      `<script>document.getElementById('verdict').textContent = 'The script ran'; fetch('${probeUrl}/script');</script>`,
      '<p><a href="{{unsubscribeUrl}}">Unsubscribe</a></p>',
    ].join('');
    const sent = await request('POST', '/api/email/send', {
      key: account.key,
      body: { from: `Acme <${account.from}>`, recipients: [ann], subject: 'Your receipt', content: html },
    });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const email = await request('GET', `/api/emails/${sent.body.successfulEmails[0].trackingId}`, { key: account.key });
    const { page, problems } = await freshPage(dashboard);
    await page.goto(`${dashboard.base}/app/`);
    await signInThroughForm(page, account.admin);

    await page.goto(`${dashboard.base}/app/emails/${email.body.data.id}`);
    await page.getByRole('heading', { name: 'Content' }).waitFor();
    await page.frameLocator('iframe').getByText('The script did not run').waitFor();
    expect(await page.getByTitle('The email’s HTML').getAttribute('sandbox')).toBe('');
    await page.getByText('Remote images are not loaded', { exact: false }).waitFor();
    await expectAccessible(page, "an email's content, HTML");

    await page.getByRole('tab', { name: 'Text' }).click();
    const text = page.getByRole('tabpanel', { name: 'Text' });
    await expect.poll(() => text.textContent()).toContain('The script did not run');
    await expectAccessible(page, "an email's content, text");

    await page.getByRole('tab', { name: 'Headers' }).click();
    const headers = page.getByRole('tabpanel', { name: 'Headers' });
    await headers.getByText('List-Unsubscribe-Post').waitFor();
    expect(await headers.getByText(`Acme <${account.from}>`).count()).toBe(1);
    expect(await headers.getByText('Your receipt').count()).toBe(1);
    await expectAccessible(page, "an email's content, headers");

    // Anything the frame had loaded would have arrived by now: the page, its three tabs and axe-core took seconds.
    expect(probed).toEqual([]);
    expect(problems.filter((problem) => !REFUSAL.test(problem))).toEqual([]);
  });

  it("says so when an email's content is not kept", async () => {
    const account = await dashboardAccount();
    const gone = uniqueAddress('gone');
    await addContact(account.key, gone, 'unsubscribed');
    await request('POST', '/api/email/send', {
      key: account.key,
      body: { from: account.from, recipients: [gone, uniqueAddress()], subject: 'S', content: '<p>S</p>' },
    });
    const suppressed = (await request('GET', `/api/emails?to=${encodeURIComponent(gone)}`, { key: account.key })).body.emails[0];
    const { page, problems } = await freshPage(dashboard);
    await page.goto(`${dashboard.base}/app/`);
    await signInThroughForm(page, account.admin);

    await page.goto(`${dashboard.base}/app/emails/${suppressed.id}`);
    await page.getByText('The content of this email is not kept').waitFor();
    await expectAccessible(page, 'an email whose content is not kept');
    expect(problems).toEqual([]);
  });
});
