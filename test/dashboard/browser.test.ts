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
import { addMember } from '#shared/accounts/members.ts';
import { localVerifier, verifyDomain } from '#shared/domains/verification.ts';
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
    await expect.poll(() => page.getByRole('table', { name: 'The latest emails' }).getByRole('row').count()).toBe(4);
    await expectAccessible(page, 'Overview');
    expect(problems).toEqual([]);
  });

  it('lists emails, filters them (a bad recipient is refused beside its field, before any request), and opens one with its timeline', async () => {
    const { account, page, problems } = await signedInAdmin();
    const [ann, bob] = [uniqueAddress('ann'), uniqueAddress('bob')];
    for (const to of [ann, bob]) expect((await sendPlain(account, [to])).status).toBe(200);

    await nav(page).getByRole('link', { name: 'Emails' }).click();
    await page.getByRole('heading', { level: 1, name: 'Emails' }).waitFor();
    await page.getByRole('table', { name: 'Sent emails, newest first' }).waitFor();
    await expectAccessible(page, 'Emails');
    await page.getByLabel('Recipient').fill('ann@');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => describedText(page, 'Recipient')).toBe('to must be a valid email address');
    const refusedUrl = page.url();
    await page.getByLabel('Recipient').fill(ann);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => page.getByRole('table', { name: 'Sent emails, newest first' }).getByRole('row').count()).toBe(2);
    const filteredUrl = page.url();
    await page.getByRole('link', { name: 'Hi' }).click();
    await page.getByRole('heading', { name: 'Timeline' }).waitFor();
    await page.getByText('Sent to SES').waitFor();

    expect(new URL(refusedUrl).search).toBe('');
    expect(new URL(filteredUrl).searchParams.get('to')).toBe(ann);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Hi');
    expect(await page.getByText(ann).count()).toBeGreaterThan(0);
    await expectAccessible(page, "an email's page");
    expect(problems).toEqual([]);
  });

  it('adds a domain (a bad name refused beside the field, what was typed kept), shows its records, verifies it now and deletes it after confirmation', async () => {
    const { account, page, problems } = await signedInAdmin();
    const domain = `d${Date.now().toString(36)}.example.com`;

    await nav(page).getByRole('link', { name: 'Domains' }).click();
    await page.getByRole('heading', { level: 1, name: 'Domains' }).waitFor();
    await expectAccessible(page, 'Domains');
    await page.getByLabel('Domain', { exact: true }).fill('not a domain');
    await page.getByRole('button', { name: 'Add domain' }).click();
    await expect.poll(() => describedText(page, 'Domain')).toContain('domain: must be a domain name such as example.com or mail.example.com');
    const kept = await page.getByLabel('Domain', { exact: true }).inputValue();
    await page.getByLabel('Domain', { exact: true }).fill(domain);
    await page.getByRole('button', { name: 'Add domain' }).click();
    await page.getByRole('heading', { level: 1, name: domain }).waitFor();
    const records = await page
      .getByRole('table', { name: `DNS records for ${domain}` })
      .getByRole('row')
      .count();
    await expectAccessible(page, "a domain's page");
    await page.getByRole('button', { name: 'Verify now' }).click();
    await page.getByRole('status').filter({ hasText: 'Not verified yet' }).waitFor();
    // Locally no DNS answers: the operator vouches for the domain (admin domain verify), as its published records would.
    await verifyDomain(account.accountId, domain, localVerifier);
    await page.getByRole('button', { name: 'Verify now' }).click();
    await page.getByRole('status').filter({ hasText: 'Verified.' }).waitFor();
    await page.getByRole('button', { name: 'Delete domain' }).click();
    await page.getByRole('alertdialog', { name: `Delete ${domain}?` }).waitFor();
    await expectAccessible(page, 'the delete confirmation');
    await page.getByRole('alertdialog').getByRole('button', { name: 'Delete domain' }).click();
    await page.getByRole('heading', { level: 1, name: 'Domains' }).waitFor();

    expect(kept).toBe('not a domain');
    expect(records).toBeGreaterThan(3);
    await expect.poll(() => page.getByRole('link', { name: domain }).count()).toBe(0);
    expect(problems).toEqual([]);
  });

  it('creates a sending key, shows its secret once, and the key sends; disabled it is refused, revoked it is unknown', async () => {
    const { account, page, problems } = await signedInAdmin();

    await nav(page).getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    await expectAccessible(page, 'API keys');
    await page.getByRole('button', { name: 'Create key' }).click();
    await expect.poll(() => describedText(page, 'Name')).toContain('name is required');
    await page.getByLabel('Name', { exact: true }).fill('Mail server');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.getByRole('region', { name: 'Secret of the key Mail server' }).getByText(/^svc_/).textContent())!;
    await expectAccessible(page, 'a new key');
    const sent = await request('POST', '/api/email/send', {
      key: secret,
      body: { from: account.from, recipients: [uniqueAddress('key')], subject: 'By the new key', content: 'Hi' },
    });
    await page.getByRole('button', { name: 'I have copied it' }).click();
    const row = page.getByRole('row').filter({ hasText: 'Mail server' });
    await row.getByRole('button', { name: 'Disable the key Mail server' }).click();
    await row.getByRole('button', { name: 'Enable the key Mail server' }).waitFor();
    const whileDisabled = await request('GET', '/api/emails', { key: secret });
    await row.getByRole('button', { name: 'Revoke the key Mail server' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Revoke key' }).click();
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'Mail server' }).count()).toBe(0);
    const afterRevoke = await request('GET', '/api/emails', { key: secret });

    expect(secret).toMatch(/^svc_live_/);
    expect(sent.status).toBe(200);
    expect(whileDisabled.status).toBe(403);
    expect(afterRevoke.status).toBe(401);
    expect(await page.getByText(secret).count()).toBe(0);
    expect(problems).toEqual([]);
  });

  it('drives the API keys page by keyboard alone: create a key, copy nothing, revoke it', async () => {
    const { page, problems } = await signedInAdmin();
    await openPage(page, dashboard.base, '/api-keys', 'API keys');
    const focused = () =>
      page.evaluate(() => {
        // The tests' TypeScript has no DOM library: the page's document, untyped.
        const active = (globalThis as any).document.activeElement;
        return (active?.getAttribute('aria-label') ?? active?.labels?.[0]?.textContent ?? active?.textContent ?? '') as string;
      });
    const tabTo = async (name: string) => {
      for (let step = 0; step < 40; step++) {
        await page.keyboard.press('Tab');
        if ((await focused()).trim() === name) return;
      }
      throw new Error(`Tab never reached ${name}`);
    };

    await page.keyboard.press('Tab');
    const skipLink = await focused();
    await page.keyboard.press('Enter');
    await tabTo('Name');
    await page.keyboard.type('Keyboard key');
    await page.keyboard.press('Tab');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Tab');
    await page.keyboard.press('ArrowDown');
    await tabTo('Create key');
    await page.keyboard.press('Enter');
    await page.getByRole('region', { name: 'Secret of the key Keyboard key' }).waitFor();
    await tabTo('I have copied it');
    await page.keyboard.press('Enter');
    const row = page.getByRole('row').filter({ hasText: 'Keyboard key' });
    await row.waitFor();
    const access = await row.getByRole('cell').nth(1).textContent();
    await tabTo('Revoke the key Keyboard key');
    await page.keyboard.press('Enter');
    await page.getByRole('alertdialog').waitFor({ timeout: 20_000 });
    const focusInDialog = await focused();
    await page.keyboard.press('Escape');
    // The dialog gives focus back once it has closed: Enter pressed before that would reach nothing.
    await expect.poll(focused).toBe('Revoke the key Keyboard key');
    const focusAfterEscape = await focused();
    await page.keyboard.press('Enter');
    await page.getByRole('alertdialog').waitFor({ timeout: 20_000 });
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'Keyboard key' }).count()).toBe(0);

    expect(skipLink).toBe('Skip to content');
    expect(access).toContain('Full access');
    expect(focusInDialog).toBe('Cancel');
    expect(focusAfterEscape).toBe('Revoke the key Keyboard key');
    expect(problems).toEqual([]);
  });

  it('creates a webhook, shows its secret once, sends a test event and shows the delivery succeeded; disables, enables and deletes it', async () => {
    const { page, problems } = await signedInAdmin();

    await openPage(page, dashboard.base, '/webhooks', 'Webhooks');
    await expectAccessible(page, 'Webhooks');
    await page.getByLabel('Endpoint URL').fill('not a url');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await expect.poll(() => describedText(page, 'Endpoint URL')).toContain('url: must be an absolute URL');
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = await page
      .getByRole('region', { name: 'Signing secret' })
      .getByText(/^whsec_/)
      .textContent();
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await page.getByRole('link', { name: receiver.url }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhook endpoint' }).waitFor();
    const before = receiver.requests.length;
    await page.getByRole('button', { name: `Send test event to ${receiver.url}` }).click();
    const delivery = page.getByRole('table', { name: 'Deliveries, newest first' }).getByRole('row').filter({ hasText: 'webhook.test' });
    await delivery.getByText('succeeded').waitFor({ timeout: 20_000 });
    await expectAccessible(page, "a webhook's page");
    const attempts = await delivery.getByRole('cell').nth(1).textContent();

    // A busy action ignores presses; its new label shows a render before its request has settled, longer on a loaded machine.
    const settled = (name: string) => page.getByRole('button', { name }).and(page.locator(':not([data-busy])'));
    await settled(`Disable ${receiver.url}`).click();
    await settled(`Enable ${receiver.url}`).click();
    await settled(`Disable ${receiver.url}`).waitFor();
    await page.getByRole('button', { name: `Delete ${receiver.url}` }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Delete endpoint' }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    await page.getByText('No endpoint yet.', { exact: false }).waitFor();

    expect(secret).toMatch(/^whsec_/);
    expect(receiver.requests.length).toBeGreaterThan(before);
    expect(attempts).toBe('1');
    expect(problems).toEqual([]);
  });

  it('invites a member, who signs in and sees no key, domain, webhook or team page; changes a role and removes a member; the last admin cannot be demoted', async () => {
    const { page, problems } = await signedInAdmin();
    const member = uniqueAddress('member');

    await openPage(page, dashboard.base, '/team', 'Team');
    await page.getByText('The last admin: make another member admin first.').waitFor();
    await page.getByLabel('Email address').fill(member);
    await page.getByRole('button', { name: 'Invite' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `${member} is in the team` })
      .waitFor();
    await expectAccessible(page, 'Team');
    const leaving = uniqueAddress('leaving');
    await page.getByLabel('Email address').fill(leaving);
    await page.getByRole('button', { name: 'Invite' }).click();
    await page.getByRole('button', { name: `Make admin: ${leaving}` }).click();
    await page.getByRole('button', { name: `Make member: ${leaving}` }).waitFor();
    await page.getByRole('button', { name: `Remove ${leaving}` }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Remove member' }).click();
    await expect.poll(() => page.getByRole('row').filter({ hasText: leaving }).count()).toBe(0);
    const [invitation] = await inboxOf(member, 1);
    await page.getByRole('button', { name: /^Account:/ }).click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await signInThroughForm(page, member);
    const links = await nav(page).getByRole('link').allTextContents();
    await nav(page).getByRole('link', { name: 'Broadcasts' }).click();
    await page.getByRole('heading', { level: 1, name: 'Broadcasts' }).waitFor();
    await expectAccessible(page, 'a page coming next');
    await page.goto(`${dashboard.base}/app/api-keys`);
    await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
    await expectAccessible(page, 'a page a member may not open');

    expect(invitation!.body.text).toContain(`${dashboard.base}/app/`);
    expect(links).toEqual(['Overview', 'Emails', 'Broadcasts', 'Templates', 'Audiences', 'Forms']);
    expect(problems).toEqual([]);
  });

  it('returns to sign-in when the session ends mid-page, then to the same page; a 429 says when to retry', async () => {
    const { account, page, problems } = await signedInAdmin({ plan: 'free' });
    await openPage(page, dashboard.base, '/emails?status=bounced', 'Emails');
    await page.getByText('No email matches these filters on this page.').waitFor();

    await page.context().clearCookies();
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    const addressWhileSignedOut = page.url();
    await signInThroughForm(page, account.admin);
    await page.getByRole('heading', { level: 1, name: 'Emails' }).waitFor();

    expect(new URL(addressWhileSignedOut).pathname + new URL(addressWhileSignedOut).search).toBe('/app/emails?status=bounced');
    expect(new URL(page.url()).search).toBe('?status=bounced');

    // The free plan's 10 requests a second, spent by the page itself, then one more from the form.
    const refusal = await eventually(
      async () => {
        await page.evaluate(() => Promise.all(Array.from({ length: 12 }, () => fetch('/api/emails?limit=1'))));
        await page.getByRole('button', { name: 'Apply filters' }).click();
        return page.getByRole('alert').allTextContents();
      },
      (texts) => texts.some((text) => /Try again in \d+ seconds?\./.test(text)),
    );
    expect(refusal.join(' ')).toMatch(/Try again in \d+ seconds?\./);
    expect(problems).toEqual([]);
  });

  it("switches account from the account menu: the other account's Overview, with the role held there", async () => {
    const first = await dashboardAccount();
    const second = await dashboardAccount();
    await addMember(second.accountId, { email: first.admin, role: 'member' }, { type: 'operator', id: 'test' }, new Date());
    const { page, problems } = await freshPage(dashboard);
    await page.goto(`${dashboard.base}/app/api-keys`);
    await signInThroughForm(page, first.admin);
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();

    await page.getByRole('button', { name: /^Account:/ }).click();
    const menu = page.getByRole('menu', { name: 'Account' });
    await menu.waitFor();
    await expectAccessible(page, 'the account menu');
    const accounts = await menu.getByRole('menuitemradio').allTextContents();
    await menu.getByRole('menuitemradio').nth(1).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();

    expect(accounts).toHaveLength(2);
    expect(accounts[1]).toContain('(member)');
    await expect.poll(() => nav(page).getByRole('link').allTextContents()).toEqual(['Overview', 'Emails', 'Broadcasts', 'Templates', 'Audiences', 'Forms']);
    expect(problems).toEqual([]);
  });
});
