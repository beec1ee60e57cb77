/**
 * Debian's headless Chromium driven by playwright-core, for tests of the pages
 * the API serves. Such tests are skipped, with a message, only on a developer
 * machine without /usr/bin/chromium; in CI (which installs it) a missing
 * browser fails the run.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

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

/**
 * One Chromium per worker process, launched by its first browser file and
 * kept for the next ones (the `shared` project runs many files in a worker):
 * a launch costs a second or more of CPU. On the process's global, so that it
 * outlives a file that loads this module again. Playwright kills it and
 * removes its profile when the process exits.
 */
const worker = globalThis as { postlaneChromium?: Promise<Browser> };

async function workerBrowser(): Promise<Browser> {
  const launched = await worker.postlaneChromium?.catch(() => undefined);
  if (launched?.isConnected()) return launched;
  worker.postlaneChromium = chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  return worker.postlaneChromium;
}

const opened: BrowserContext[] = [];

/**
 * A browser of the file's own: a new context of the worker's Chromium, which
 * shares no cookie, storage or cache with another context. `closeBrowsers`
 * closes it.
 */
export async function openBrowser(options: { javaScriptEnabled: boolean }): Promise<BrowserContext> {
  const context = await (await workerBrowser()).newContext(options);
  opened.push(context);
  return context;
}

/** Closes the file's contexts (the worker's Chromium stays for its next file). */
export async function closeBrowsers(): Promise<void> {
  await Promise.all(opened.splice(0).map((context) => context.close()));
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
