/**
 * The dashboard in a real browser: a browser context of the file's own in the
 * worker's Chromium (test/support/browser.ts), the dashboard built once for the
 * run (test/support/global-setup.ts) and served by the worker's API server, people signed
 * in through the sign-in form with the code the SES emulator stored, and
 * axe-core run in the page at both widths every page must work at.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, expect } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { addMember } from '#shared/accounts/members.ts';
import { startApi } from '../support/api.ts';
import { closeBrowsers, newPage, openBrowser, skipWithoutChromium } from '../support/browser.ts';
import { createSender, uniqueAddress } from '../sending/support.ts';
import { codeIn, inbox, inboxOf, runMailWorker } from '../people/support.ts';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The widths every page is checked at: a small phone and a desktop. */
export const WIDTHS = [375, 1440] as const;

export interface Dashboard {
  base: string;
  context: BrowserContext;
}

/** Starts the API server that serves the dashboard, and opens the file's browser. */
export async function openDashboard(): Promise<Dashboard> {
  const [api, context] = await Promise.all([startApi(), openBrowser({ javaScriptEnabled: true })]);
  return { base: api.url, context };
}

/** The dashboard of one test file, and whether the file is skipped for want of Chromium. */
export interface DashboardFile extends Dashboard {
  skip: boolean;
}

/**
 * What every browser file starts with: the line saying what it skips without
 * Chromium, the mail worker that sends the sign-in codes, the dashboard opened
 * before the file's tests and the file's browser contexts closed after them.
 * Its `base` and `context` are there once the file's tests run.
 */
export function dashboardFile(name: string): DashboardFile {
  const skip = skipWithoutChromium(name);
  let opened: Dashboard | undefined;
  runMailWorker();
  beforeAll(async () => {
    if (!skip) opened = await openDashboard();
  });
  afterAll(async () => {
    if (!skip) await closeBrowsers();
  });
  const current = (): Dashboard => {
    if (!opened) throw new Error('The dashboard opens before the tests of the file, not when it is imported');
    return opened;
  };
  return {
    skip,
    get base() {
      return current().base;
    },
    get context() {
      return current().context;
    },
  };
}

/**
 * A fresh page with no session (the cookies of the person before are dropped),
 * recording what the browser complains about: a script error, a CSP refusal.
 * Chromium also logs every 4xx answer as a failed load; those are the API's
 * refusals, which the pages handle, and are left out.
 */
export async function freshPage(dashboard: Dashboard): Promise<{ page: Page; problems: string[] }> {
  await dashboard.context.clearCookies();
  for (const open of dashboard.context.pages()) await open.close();
  const session = await newPage(dashboard.context, { ignore: /^Failed to load resource: the server responded with a status of 4\d\d/ });
  await session.page.setViewportSize({ width: 1440, height: 900 });
  session.page.setDefaultTimeout(10_000);
  return session;
}

/** An account that sends from a verified domain of its own, with an admin (and optionally other people) who may sign in. */
export async function dashboardAccount(options: Parameters<typeof createSender>[0] = {}) {
  const sender = await createSender(options);
  const admin = uniqueAddress('admin');
  await addMember(sender.accountId, { email: admin, role: 'admin' }, { type: 'operator', id: 'test' }, new Date());
  return { ...sender, admin };
}

/**
 * Signs in through the form as a person does: the address, the code from the
 * mail the SES emulator stored, then whatever page the address shows.
 */
export async function signInThroughForm(page: Page, email: string): Promise<void> {
  const before = (await inbox(email)).length;
  await page.getByLabel('Email address').fill(email);
  await page.getByRole('button', { name: 'Email me a sign-in code' }).click();
  await page.getByLabel('Sign-in code').waitFor();
  const code = codeIn((await inboxOf(email, before + 1))[before]!);
  await page.getByLabel('Sign-in code').fill(code);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
}

/** Opens `path` of the dashboard (`/emails`) and waits for its heading. */
export async function openPage(page: Page, base: string, path: string, heading: string): Promise<void> {
  await page.goto(`${base}/app${path}`);
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

/** axe-core's violations on the page as it stands, at 375 and at 1440 pixels wide: none are allowed. */
export async function expectAccessible(page: Page, what: string): Promise<void> {
  // Evaluated through the DevTools protocol, which the page's CSP does not govern (an injected <script> it would refuse).
  if (!(await page.evaluate('typeof window.axe !== "undefined"'))) await page.evaluate(AXE_SOURCE);
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    const violations = await page.evaluate(async () => {
      // The tests' TypeScript has no DOM library: the page's globals, untyped.
      const inPage = globalThis as any;
      const { violations } = await inPage.axe.run(inPage.document, { resultTypes: ['violations'] });
      return violations.map((violation: any) => `${violation.id}: ${violation.nodes.map((node: any) => node.target.join(' ')).join(', ')}`);
    });
    expect(violations, `${what} at ${width} px`).toEqual([]);
  }
  await page.setViewportSize({ width: 1440, height: 900 });
}

/** What a field says about itself to a screen reader beyond its label (its description and its error), by aria-describedby. */
export function describedText(page: Page, label: string): Promise<string> {
  return page.getByLabel(label, { exact: true }).evaluate((input) =>
    (input.getAttribute('aria-describedby') ?? '')
      .split(' ')
      .map((id: string) => input.ownerDocument.getElementById(id)?.textContent ?? '')
      .join(' ')
      .trim(),
  );
}

/** The template builder's email preview (dashboard/src/pages/templates/preview.tsx). */
export const previewFrame = (page: Page) => page.locator('iframe[title="Preview of the email"]');
/** The HTML the preview shows. */
export const previewSource = async (page: Page) => (await previewFrame(page).getAttribute('srcdoc')) ?? '';
/** The builder's components, in order, as their summaries read. */
export const builderRows = (page: Page) => page.getByRole('grid', { name: 'Components, in order' }).locator('.component-summary').allTextContents();
