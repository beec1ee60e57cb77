/**
 * The browser import of bench/dashboard-import.ts alone, to iterate on the
 * page's responsiveness without the rest of the dashboard section:
 *
 *   node --import tsx bench/dashboard-import-alone.ts [--rows 100000] [--trace /tmp/import-trace.json]
 *
 * Prints the figures, the budgets they meet or not (bench/budgets.ts), and
 * with `--trace` the page thread's tasks over 50 ms, each with the CPU time
 * it used and what took its time (scripts by function and file, garbage
 * collection, style, layout).
 */
import { readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { chromium } from 'playwright-core';
import { startBenchStack } from './stack.ts';

const argument = (name: string) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
};
const rowsArgument = argument('--rows');
const trace = argument('--trace');
const progress = (message: string) => process.stderr.write(`bench: ${message}\n`);

interface TraceEvent {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  /** The thread's CPU time in the event: far below `dur` when the thread waited for a CPU (a loaded machine), not for the page's work. */
  tdur?: number;
  pid: number;
  tid: number;
  args?: { name?: string; data?: { url?: string; functionName?: string; lineNumber?: number } };
}

/** The renderer main thread's top-level tasks over 50 ms, longest first, with their costliest inner events. */
async function longTasks(path: string): Promise<string[]> {
  const parsed = JSON.parse(await readFile(path, 'utf8')) as { traceEvents: TraceEvent[] } | TraceEvent[];
  const events = Array.isArray(parsed) ? parsed : parsed.traceEvents;
  const main = events.find((event) => event.name === 'thread_name' && event.args?.name === 'CrRendererMain');
  if (!main) return ['no CrRendererMain thread in the trace'];
  const onMain = events.filter((event) => event.pid === main.pid && event.tid === main.tid && event.ph === 'X' && event.dur !== undefined);
  const tasks = onMain.filter((event) => event.name === 'RunTask' || event.name === 'ThreadControllerImpl::RunTask').filter((task) => task.dur! > 50_000);
  tasks.sort((a, b) => b.dur! - a.dur!);
  return tasks.slice(0, 15).map((task) => {
    const inner = new Map<string, number>();
    for (const event of onMain) {
      if (event === task || event.ts < task.ts || event.ts + event.dur! > task.ts + task.dur!) continue;
      if (event.name === 'RunTask' || event.name === 'ThreadControllerImpl::RunTask') continue;
      const data = event.args?.data;
      const what =
        data?.functionName || data?.url
          ? `${event.name} ${data.functionName ?? ''} ${(data.url ?? '').replace(/^.*\//, '')}:${data.lineNumber ?? ''}`
          : event.name;
      inner.set(what, (inner.get(what) ?? 0) + event.dur!);
    }
    const top = [...inner].sort((a, b) => b[1] - a[1]).slice(0, 8);
    return `${(task.dur! / 1000).toFixed(0)} ms (${((task.tdur ?? 0) / 1000).toFixed(0)} ms of CPU) at ${((task.ts - tasks[0]!.ts) / 1e6).toFixed(1)} s: ${top.map(([what, dur]) => `${what} ${(dur / 1000).toFixed(0)}`).join(' | ')}`;
  });
}

const stack = await startBenchStack();
try {
  // After the stack (every import below, the bench's own too): these read shared/platform/config.ts, which the stack has pointed at the local services.
  const { startHttpServer } = await import('#dev/local/http-server.ts');
  const { startRetryWorker } = await import('#dev/local/retry-worker.ts');
  const { addMember } = await import('#shared/accounts/members.ts');
  const { buildDashboard } = await import('../dashboard/build.ts');
  const { signIn } = await import('./dashboard.ts');
  const { IMPORT_ROWS, measureBrowserImport } = await import('./dashboard-import.ts');
  const rows = rowsArgument === undefined ? IMPORT_ROWS : Number(rowsArgument);
  const { checkBrowserImport } = await import('./budgets.ts');
  const { createBenchAccount, uniqueEmail } = await import('./fixtures.ts');
  const server = await startHttpServer({ port: stack.apiPort });
  const mail = await startRetryWorker();
  try {
    progress('building the dashboard');
    await buildDashboard();
    const account = await createBenchAccount();
    const admin = uniqueEmail('admin');
    await addMember(account.accountId, { email: admin, role: 'admin' }, { type: 'operator', id: 'bench' }, new Date());
    const cookie = await signIn(server.url, stack.sesEndpoint, admin);
    const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] });
    try {
      const loadBefore = loadavg()[0]!;
      const figures = await measureBrowserImport(browser, server.url, cookie, account, progress, { rows, trace });
      console.log(JSON.stringify({ ...figures, loadAverage: [loadBefore, loadavg()[0]] }, null, 2));
      for (const budget of checkBrowserImport(figures)) console.log(`${budget.ok ? 'ok  ' : 'FAIL'} ${budget.budget}: ${budget.detail}`);
      if (trace) for (const line of await longTasks(trace)) console.log(line);
    } finally {
      await browser.close();
    }
  } finally {
    await mail.stop();
    await server.close();
  }
} finally {
  await stack.stop();
}
