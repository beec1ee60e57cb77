/**
 * The dashboard's section of the benchmark (docs/dashboard.md, "The
 * JavaScript budget"; docs/performance.md): the gzipped JavaScript of
 * sign-in and of sign-in plus the Overview, the API calls the Overview loads
 * with, what reading 30 days of statistics costs in DynamoDB calls, and
 * Lighthouse's performance and accessibility scores of the Overview and
 * Emails. A person is signed in as one is: a code asked for over the API,
 * read from the SES emulator's stored mail, exchanged for the session cookie.
 * Lighthouse runs when the npm package `lighthouse` is installed (it is not
 * a dependency yet); otherwise the section says so and checks the rest.
 */
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { BUDGET_PAGES, buildDashboard, javascriptFor } from '../dashboard/build.ts';
import { findFreePort } from '#dev/local/ports.ts';
import { addMember } from '#shared/accounts/members.ts';
import { createAudience } from '#shared/audiences/service.ts';
import { createTemplate } from '#shared/templates/service.ts';
import { type BrowserImportResults, measureBrowserImport } from './dashboard-import.ts';
import { sessionCookieName } from '#shared/accounts/session-cookie.ts';
import type { DynamoMeter } from './dynamo-meter.ts';
import { createBenchAccount, uniqueEmail } from './fixtures.ts';
import type { Progress } from './metered.ts';
import { seedContacts } from './scale.ts';
import { expectCall } from './stack.ts';

const CHROMIUM = '/usr/bin/chromium';
/** Issue 31: the contacts table is scored on an audience this large. */
export const CONTACTS_TABLE_SIZE = 10_000;
const SIGN_IN_PAGE = 'dashboard/src/pages/sign-in/page.tsx';

export interface LighthouseScore {
  page: string;
  /** 0 to 100, as Lighthouse shows them. */
  performance: number;
  accessibility: number;
  /** What the performance score is made of: first and largest contentful paint, total blocking time (ms), cumulative layout shift. */
  metrics: { fcpMs: number; lcpMs: number; tbtMs: number; cls: number };
}

export interface DashboardBenchResults {
  /** Gzipped bytes of JavaScript loaded to show sign-in, and sign-in then the Overview (`javascriptFor`). */
  javascript: { signIn: number; overview: number };
  /** The API paths the Overview asked for while it loaded, the session's included. */
  overviewCalls: string[];
  /** GET /api/stats of the last 30 days with a key, and with the dashboard's session: DynamoDB calls and their operations. */
  statsRead: { key: { roundTrips: number; operations: string[] }; session: { roundTrips: number; operations: string[] } };
  /** Scores, or why Lighthouse did not run. */
  lighthouse: LighthouseScore[] | { skipped: string };
  /** Issue 31: 100,000 rows imported from a CSV file in Chromium. */
  browserImport: BrowserImportResults;
}

/** The code of the latest sign-in mail to `email` in the SES emulator, waiting for the retry queue's worker to send it. */
async function mailedCode(sesEndpoint: string, email: string): Promise<string> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const { emails } = (await (await fetch(`${sesEndpoint}/store`)).json()) as { emails: { destination: { to: string[] }; body: { text?: string } }[] };
    const mail = emails.findLast((stored) => stored.destination.to.includes(email));
    const code = /\b(\d{6})\b/.exec(mail?.body.text ?? '')?.[1];
    if (code) return code;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`no sign-in code reached ${email} in the SES emulator`);
}

/** Signs `email` in over the API as the dashboard does; answers the `Cookie` header's value. */
export async function signIn(api: string, sesEndpoint: string, email: string): Promise<string> {
  await expectCall(api, 200, 'POST', '/api/session/code', { body: { email } });
  const code = await mailedCode(sesEndpoint, email);
  const response = await fetch(`${api}/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, code }),
  });
  const cookie = response.headers.getSetCookie().find((set) => set.startsWith(`${sessionCookieName()}=`));
  if (response.status !== 200 || !cookie) throw new Error(`POST /api/session: ${response.status} ${await response.text()}`);
  return cookie.split(';')[0]!;
}

/** The /api/ paths the Overview requests until its quota meter and latest emails are shown. */
async function overviewCalls(browser: Browser, api: string, cookie: string): Promise<string[]> {
  const context = await browser.newContext();
  const [name, value] = [cookie.slice(0, cookie.indexOf('=')), cookie.slice(cookie.indexOf('=') + 1)];
  await context.addCookies([{ name, value, url: api, httpOnly: true, sameSite: 'Strict' }]);
  const page = await context.newPage();
  const calls: string[] = [];
  page.on('request', (request) => {
    const { pathname } = new URL(request.url());
    if (pathname.startsWith('/api/')) calls.push(`${request.method()} ${pathname}`);
  });
  await page.goto(`${api}/app/`);
  await page.getByRole('meter', { name: 'Monthly quota' }).waitFor({ timeout: 20_000 });
  await page.getByRole('table', { name: 'The latest emails' }).waitFor({ timeout: 20_000 });
  await context.close();
  return calls;
}

/** Lighthouse's run function, when the package is installed; the name is a variable so the type-check does not require it. */
async function loadLighthouse(): Promise<((url: string, flags: Record<string, unknown>, config?: unknown) => Promise<any>) | undefined> {
  const name = 'lighthouse';
  try {
    return ((await import(name)) as { default: (url: string, flags: Record<string, unknown>, config?: unknown) => Promise<any> }).default;
  } catch {
    return undefined;
  }
}

/** Lighthouse on each page through Chromium's DevTools port, the session cookie sent with every request it makes. */
async function lighthouseScores(
  port: number,
  api: string,
  cookie: string,
  pages: readonly { name: string; path: string }[],
): Promise<DashboardBenchResults['lighthouse']> {
  const lighthouse = await loadLighthouse();
  if (!lighthouse) return { skipped: 'the npm package lighthouse is not installed' };
  // The desktop preset: the dashboard is a tool people use at a desk (the browser tests check 375 pixels too).
  const desktop = ((await import(['lighthouse', 'core', 'config', 'desktop-config.js'].join('/'))) as { default: unknown }).default;
  const scores: LighthouseScore[] = [];
  for (const { name, path } of pages) {
    const result = await lighthouse(
      `${api}${path}`,
      { port, output: 'json', logLevel: 'error', onlyCategories: ['performance', 'accessibility'], extraHeaders: { cookie } },
      desktop,
    );
    const categories = result.lhr.categories as Record<'performance' | 'accessibility', { score: number }>;
    const audit = (id: string) => (result.lhr.audits[id] as { numericValue: number }).numericValue;
    const metrics = {
      fcpMs: audit('first-contentful-paint'),
      lcpMs: audit('largest-contentful-paint'),
      tbtMs: audit('total-blocking-time'),
      cls: audit('cumulative-layout-shift'),
    };
    scores.push({
      page: name,
      performance: Math.round(categories.performance.score * 100),
      accessibility: Math.round(categories.accessibility.score * 100),
      metrics,
    });
    // The whole report, for what a score under budget is made of (which element was the LCP, what shifted).
    const file = join(tmpdir(), `postlane-lighthouse-${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}.json`);
    await writeFile(file, result.report as string);
  }
  return scores;
}

/**
 * Issue 31's pages: an audience's contacts table with CONTACTS_TABLE_SIZE
 * contacts (batch writes of the contacts store's own items; a tenth
 * unsubscribed, some tagged, so the badges and tags cells show), and the
 * builder of a template of several components of each type.
 */
async function issue31Pages(accountId: string): Promise<{ name: string; path: string }[]> {
  const now = new Date();
  const audience = await createAudience(accountId, { name: 'Newsletter' }, now);
  await seedContacts(
    accountId,
    audience.id,
    CONTACTS_TABLE_SIZE,
    now,
    (index) => (index % 10 === 0 ? 'unsubscribed' : 'subscribed'),
    (index) => (index % 3 === 0 ? ['vip', 'early'] : []),
  );
  const template = await createTemplate(
    accountId,
    {
      name: 'Monthly digest',
      subject: 'Your {{month}} digest, {{firstName}}',
      components: [
        { type: 'heading', content: 'Hello {{firstName}}', level: 1 },
        { type: 'text', content: 'Here is what happened in {{month}}: three new features, one fix, and a look at what comes next.' },
        { type: 'heading', content: 'New this month', level: 2 },
        { type: 'text', content: 'Scheduled broadcasts, a template builder with a live preview, and imports of 100,000 contacts from a CSV file.' },
        { type: 'button', label: 'Read the changelog', url: 'https://example.com/changelog' },
        { type: 'text', content: 'Questions? Reply to this email.' },
      ],
      styles: {},
    },
    now,
  );
  return [
    { name: `Contacts (${CONTACTS_TABLE_SIZE.toLocaleString('en-US')})`, path: `/app/audiences/${audience.id}` },
    { name: 'Template builder', path: `/app/templates/${template.id}` },
  ];
}

/** Metered GET /api/stats (the last 30 days), with the headers given. */
async function meteredStats(api: string, meter: DynamoMeter, headers: Record<string, string>): Promise<{ roundTrips: number; operations: string[] }> {
  meter.reset();
  const response = await fetch(`${api}/api/stats`, { headers });
  if (response.status !== 200) throw new Error(`GET /api/stats: ${response.status} ${await response.text()}`);
  const { roundTrips, operations } = meter.usage();
  return { roundTrips, operations };
}

/**
 * The dashboard's figures against the bench's own API server (`api`), which
 * serves the build this makes; `sesEndpoint` is the emulator whose stored
 * mail holds the sign-in code.
 */
export async function measureDashboard(api: string, sesEndpoint: string, meter: DynamoMeter, progress: Progress): Promise<DashboardBenchResults> {
  progress('dashboard: building it, signing in through the API, loading the Overview in Chromium');
  const built = await buildDashboard();
  const javascript = { signIn: javascriptFor(built, [SIGN_IN_PAGE]), overview: javascriptFor(built, BUDGET_PAGES) };

  const account = await createBenchAccount();
  const admin = uniqueEmail('admin');
  await addMember(account.accountId, { email: admin, role: 'admin' }, { type: 'operator', id: 'bench' }, new Date());
  // A few emails, so the Overview shows a chart, rates and a latest-emails table.
  for (let index = 0; index < 3; index++) {
    const body = { from: account.from, recipients: [uniqueEmail('overview')], subject: 'Bench', content: '<p>Bench</p>' };
    await expectCall(api, 200, 'POST', '/api/email/send', { key: account.liveKeys[0]!, body });
  }
  const pages = [{ name: 'Overview', path: '/app/' }, { name: 'Emails', path: '/app/emails' }, ...(await issue31Pages(account.accountId))];
  const cookie = await signIn(api, sesEndpoint, admin);
  // One unmeasured read first, as the requests section warms each endpoint up (the handler's module loaded).
  await fetch(`${api}/api/stats`, { headers: { cookie } });
  const statsRead = {
    key: await meteredStats(api, meter, { 'x-api-key': account.liveKeys[0]! }),
    session: await meteredStats(api, meter, { cookie }),
  };

  const port = await findFreePort();
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', `--remote-debugging-port=${port}`],
  });
  try {
    const calls = await overviewCalls(browser, api, cookie);
    progress(`dashboard: Lighthouse on ${pages.map((page) => page.name).join(', ')} (the reports in ${tmpdir()}/postlane-lighthouse-*.json)`);
    const lighthouse = await lighthouseScores(port, api, cookie, pages);
    const browserImport = await measureBrowserImport(browser, api, cookie, account, progress);
    return { javascript, overviewCalls: calls, statsRead, lighthouse, browserImport };
  } finally {
    await browser.close();
  }
}
