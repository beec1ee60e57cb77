/**
 * Issue 31: 100,000 rows imported from the browser without a reload. A
 * generated CSV file of 100,000 people is chosen on an audience's page of the
 * real dashboard in headless Chromium, its columns mapped as guessed, and
 * imported (papaparse in the Web Worker, POST /api/contacts/bulk 1,000 at a
 * time) against the bench's local stack. Measured: the time from the click to
 * "Import finished.", how responsive the page stayed (its longest main-thread
 * task, from a `longtask` PerformanceObserver, and the longest wait between two
 * animation frames), the page's JavaScript heap at the end (after a garbage
 * collection, so it is what the import keeps, not what it has not freed yet),
 * that the audience counts all 100,000, and that the page was never reloaded.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { createAudience } from '#shared/audiences/service.ts';
import type { BenchAccount } from './fixtures.ts';
import type { Progress } from './metered.ts';
import { expectCall } from './stack.ts';

export const IMPORT_ROWS = 100_000;
/** Far above the few minutes 100 requests of 1,000 take on a busy machine: a stuck import fails the step rather than the bench hanging. */
const IMPORT_TIMEOUT_MS = 20 * 60_000;

export interface BrowserImportResults {
  rows: number;
  /** Bytes of the generated CSV file. */
  fileBytes: number;
  /** From the click on "Import contacts" to "Import finished." on the page. */
  ms: number;
  /** The longest main-thread task seen while the import ran (0 when none passed Chromium's 50 ms threshold). */
  longestTaskMs: number;
  /** Main-thread tasks of 50 ms or more while the import ran. */
  longTasks: number;
  /** The longest time between two requestAnimationFrame callbacks while the import ran, and how many there were. */
  longestFrameGapMs: number;
  frames: number;
  /** Requests to POST /api/contacts/bulk the page made. */
  bulkRequests: number;
  /**
   * The part of `ms` the page did not spend waiting for POST /api/contacts/bulk
   * (its requests go one after the other): parsing, mapping and checking rows,
   * and handing batches between the worker and the page. The rest is the API's.
   */
  pageShareMs: number;
  /** The page's used JavaScript heap after the import and a garbage collection (CDP `Runtime.getHeapUsage`). */
  heapBytes: number;
  /** What the audience counts afterwards (GET /api/audiences/{id}). */
  audienceCount: number;
  /** Navigations of the page's main frame after it first showed the audience: 0 when nothing reloaded it. */
  reloads: number;
  /** What the page's import status said at the end. */
  status: string;
}

/** `email,first_name,last_name,tags,plan`: every row a different person, as a list exported from another tool looks. */
function generatedCsv(rows: number): string {
  const stamp = Date.now().toString(36);
  const lines = ['email,first_name,last_name,tags,plan'];
  for (let index = 0; index < rows; index++) {
    lines.push(
      `person.${index}.${stamp}@example.org,First ${index},"Last, ${index}",${index % 10 === 0 ? '"vip; early"' : 'news'},${index % 2 ? 'pro' : 'free'}`,
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** Enough to attribute each long task to its script, function, garbage collection, style or layout. */
const TRACE_CATEGORIES = ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8', 'v8.execute', 'blink.user_timing', 'toplevel'];

/**
 * What the page installs before any of its own scripts run: an observer of
 * long tasks, counted once `__bench.measuring` is set (choosing the file and
 * mapping it are not the import); room for every request's timing (the
 * browser keeps 250 by default); and a marker that a reload would reset.
 */
function installObservers(): void {
  const scope = globalThis as unknown as PageScope;
  const bench: BenchState = { measuring: false, longest: 0, count: 0, frameGap: 0, frames: 0, marker: 'fresh' };
  scope.__bench = bench;
  scope.performance.setResourceTimingBufferSize(10_000);
  new scope.PerformanceObserver((list) => {
    if (!bench.measuring) return;
    for (const entry of list.getEntries()) {
      bench.count++;
      bench.longest = Math.max(bench.longest, entry.duration);
    }
  }).observe({ type: 'longtask' });
}

/** Starts measuring: the marker set, and the gaps between animation frames timed until `measuring` is unset. */
function startMeasuring(): void {
  const scope = globalThis as unknown as PageScope;
  const bench = scope.__bench;
  bench.marker = 'kept';
  bench.measuring = true;
  let last = 0;
  // A property, not a named function: tsx's esbuild wraps named functions in a `__name` helper the page does not have.
  scope.__benchFrame = (now: number) => {
    if (!bench.measuring) return;
    if (last > 0) bench.frameGap = Math.max(bench.frameGap, now - last);
    bench.frames++;
    last = now;
    scope.requestAnimationFrame(scope.__benchFrame);
  };
  scope.requestAnimationFrame(scope.__benchFrame);
}

/** Stops measuring; answers the figures and the time the bulk requests took from the page's side (sent one after the other). */
function stopMeasuring(): BenchState & { bulkMs: number; bulkRequests: number } {
  const scope = globalThis as unknown as PageScope;
  const bench = scope.__bench;
  bench.measuring = false;
  const bulk = scope.performance.getEntriesByType('resource').filter((entry) => entry.name.endsWith('/api/contacts/bulk'));
  return { ...bench, bulkMs: bulk.reduce((sum, entry) => sum + entry.duration, 0), bulkRequests: bulk.length };
}

interface BenchState {
  measuring: boolean;
  longest: number;
  count: number;
  frameGap: number;
  frames: number;
  marker: string;
}

/** What the scripts above use of the page's globals (the bench is type-checked without the DOM's types). */
interface PageScope {
  __bench: BenchState;
  __benchFrame: (now: number) => void;
  requestAnimationFrame(callback: (now: number) => void): number;
  PerformanceObserver: new (callback: (list: { getEntries(): { duration: number }[] }) => void) => { observe(options: { type: string }): void };
  performance: { setResourceTimingBufferSize(size: number): void; getEntriesByType(type: 'resource'): { name: string; duration: number }[] };
}

export interface BrowserImportOptions {
  /** Rows in the file; IMPORT_ROWS unless told (bench/dashboard-import-alone.ts, while iterating). */
  rows?: number;
  /** A Chrome trace of the import written here (load it in DevTools' Performance panel or pass it to bench/dashboard-import-alone.ts, which lists its long tasks). */
  trace?: string;
}

/** Imports IMPORT_ROWS rows through the audience page signed in with `cookie` (the session's `name=value`). */
export async function measureBrowserImport(
  browser: Browser,
  api: string,
  cookie: string,
  account: BenchAccount,
  progress: Progress,
  options: BrowserImportOptions = {},
): Promise<BrowserImportResults> {
  const rows = options.rows ?? IMPORT_ROWS;
  const audience = await createAudience(account.accountId, { name: 'Browser import' }, new Date());
  const folder = await mkdtemp(join(tmpdir(), 'postlane-import-'));
  const file = join(folder, `people-${rows}.csv`);
  const csv = generatedCsv(rows);
  await writeFile(file, csv);
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  try {
    const [name, value] = [cookie.slice(0, cookie.indexOf('=')), cookie.slice(cookie.indexOf('=') + 1)];
    await context.addCookies([{ name, value, url: api, httpOnly: true, sameSite: 'Strict' }]);
    await context.addInitScript(installObservers);
    const page = await context.newPage();
    await page.goto(`${api}/app/audiences/${audience.id}`);
    await page.getByRole('heading', { level: 1, name: 'Browser import' }).waitFor({ timeout: 30_000 });
    let reloads = 0;
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) reloads++;
    });
    await page.getByLabel('CSV file').setInputFiles(file);
    await page.getByRole('heading', { name: 'Preview' }).waitFor({ timeout: 30_000 });
    progress(`dashboard: importing ${rows.toLocaleString('en-US')} rows (${(csv.length / 1e6).toFixed(1)} MB) from the browser`);
    if (options.trace) await browser.startTracing(page, { path: options.trace, categories: TRACE_CATEGORIES });
    await page.evaluate(startMeasuring);
    const started = performance.now();
    await page.getByRole('button', { name: 'Import contacts' }).click();
    const status = page.locator('.import-status');
    await status.filter({ hasText: /Import finished\.|The import stopped\.|Import cancelled\./ }).waitFor({ timeout: IMPORT_TIMEOUT_MS });
    const ms = performance.now() - started;
    const observed = await page.evaluate(stopMeasuring);
    if (options.trace) await browser.stopTracing();
    const cdp = await context.newCDPSession(page);
    await cdp.send('HeapProfiler.collectGarbage');
    const { usedSize } = await cdp.send('Runtime.getHeapUsage');
    const count = (await expectCall(api, 200, 'GET', `/api/audiences/${audience.id}`, { key: account.liveKeys[0]! })).data.count as number;
    return {
      rows,
      fileBytes: Buffer.byteLength(csv),
      ms,
      longestTaskMs: observed.longest,
      longTasks: observed.count,
      longestFrameGapMs: observed.frameGap,
      frames: observed.frames,
      bulkRequests: observed.bulkRequests,
      pageShareMs: ms - observed.bulkMs,
      heapBytes: usedSize,
      audienceCount: count,
      reloads: reloads + (observed.marker === 'kept' ? 0 : 1),
      status: ((await status.textContent()) ?? '').replace(/\s+/g, ' ').trim(),
    };
  } finally {
    await context.close();
    await rm(folder, { recursive: true, force: true });
  }
}
