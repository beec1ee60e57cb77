/**
 * Debian's headless Chromium driven by playwright-core, for tests of the pages
 * the API serves. Such tests are skipped, with a message, only on a developer
 * machine without /usr/bin/chromium; in CI (which installs it) a missing
 * browser fails the run.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** True when the browser tests of `what` cannot run here; says so once. */
export function skipWithoutChromium(what: string): boolean {
  const skip = !existsSync(CHROMIUM) && !process.env.CI;
  if (skip) console.warn(`Skipping the ${what} browser tests: ${CHROMIUM} is missing (apt-get install -y chromium). CI installs it and runs them.`);
  return skip;
}

const opened: { context: BrowserContext; profile: string }[] = [];

/** A browser of its own with a fresh profile; `closeBrowsers` closes it and removes the profile. */
export async function openBrowser(options: { javaScriptEnabled: boolean }): Promise<BrowserContext> {
  const profile = mkdtempSync(join(tmpdir(), 'postlane-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true, ...options });
  opened.push({ context, profile });
  return context;
}

export async function closeBrowsers(): Promise<void> {
  for (const { context, profile } of opened.splice(0)) {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

/** A page that records what the browser complains about (a CSP refusal, a script error). */
export async function newPage(context: BrowserContext, options: { ignore?: RegExp } = {}): Promise<{ page: Page; problems: string[] }> {
  const page = await context.newPage();
  // Filled as the page runs: a caller that destructures it still sees what came later.
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && !options.ignore?.test(message.text())) problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  return { page, problems };
}
