/**
 * `npm run bench`: bundles and cold init per function, DynamoDB round trips
 * and capacity per request, warm load, scale and bulk import, and a cost
 * estimate, measured in one run on this machine against a local stack of its
 * own. Writes bench/results/latest.json and .md and prints the tables.
 * `npm run bench -- --check` also enforces the budgets (exit 1 when one fails).
 * `--only cold` (or `synth`, `start`, `requests`, `scale`, `export`, `webhooks`, `load`, `broadcast`, `dashboard`; several
 * joined by commas) runs those sections alone, prints them, checks only their
 * budgets and leaves bench/results/ as it is: a partial run is no record.
 * `--only broadcast` alone also writes bench/results/broadcast.*; `--contacts N` and
 * `--rate R` size it and set the SES stand-in's rate. `--only dashboard` alone
 * writes bench/results/dashboard.*, `--only export` alone bench/results/export.*.
 * The docs link bench/results/latest.md rather than copy its tables.
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
// The handlers in this process write an access line per request (console.log): thousands that would bury the report.
const printReport = console.log.bind(console);
console.log = () => undefined;

import { cpus, loadavg, tmpdir } from 'node:os';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { bundleAll } from './bundles.ts';
import { measureColdStarts } from './cold-start.ts';
import {
  checkBroadcast,
  checkBulkImport,
  checkDashboard,
  checkFunctions,
  checkLocalStart,
  checkRoundTrips,
  checkScale,
  checkExport,
  checkSynth,
  checkWebhooks,
  parseFloors,
  type BudgetResult,
} from './budgets.ts';
import { costPerMillion, PRICES } from './cost.ts';
import { measureLocalStart } from './local-start.ts';
import { toMarkdown, type BenchResults } from './report.ts';
import { startBenchStack, expectCall, type BenchStack } from './stack.ts';

const check = process.argv.includes('--check');
const SECTIONS = ['synth', 'cold', 'start', 'requests', 'scale', 'export', 'webhooks', 'load', 'broadcast', 'dashboard'] as const;
/** Sections long or distinct enough to be run, and recorded (bench/results/<section>.*), on their own: the results' field of each. */
const RECORDED_ALONE = { broadcast: 'broadcast', dashboard: 'dashboard', export: 'audienceExport' } as const;
type Section = (typeof SECTIONS)[number];
const onlyArgument = process.argv.indexOf('--only');
const only = onlyArgument === -1 ? undefined : (process.argv[onlyArgument + 1] ?? '').split(',');
for (const name of only ?? []) {
  if (!(SECTIONS as readonly string[]).includes(name)) throw new Error(`--only ${name}: no such section (${SECTIONS.join(', ')})`);
}
const runs = (section: Section) => only === undefined || only.includes(section);
/** `--name value` from the command line. */
const argument = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
// Before the stack and shared/platform/config.ts read it: the SES stand-in's rate, which the pacing reads as the deployment's.
if (argument('--rate') !== undefined) process.env.SES_MAX_SEND_RATE = argument('--rate');
/**
 * Repetitions: cold starts per bundle, metered requests per endpoint, load seconds per endpoint.
 * 25 cold rounds, not 15: with the DynamoDB-only functions at 0.45x of a 0.5x budget, a median of
 * 15 pairs moved by 0.1x on a busy machine; 25 take about 3 minutes more.
 */
const COLD_START_ROUNDS = 25;
const REQUEST_RUNS = 5;
/** Interleaved rounds over the three audience sizes. */
const SCALE_ROUNDS = 15;
const LOAD_SECONDS = 8;
const LOAD_CONNECTIONS = 10;
/** Load requests rotate over this many keys: 200 per second each on `business`, far above what one server process answers. */
const LOAD_KEYS = 20;
/** Form submissions are limited to 20 a minute per address and account; every local request comes from 127.0.0.1. */
const SUBMIT_ACCOUNTS = 60;
const SUBMITS_PER_ACCOUNT = 15;
/** Whole `npm start` runs, each to `ready` and stopped. */
const LOCAL_START_ROUNDS = 3;

const progress = (message: string) => process.stderr.write(`bench: ${message}\n`);

async function measureBundles(bundleDir: string) {
  progress('bundling every function with the deployed esbuild settings');
  const bundles = await bundleAll(bundleDir);
  progress(`measuring cold init: ${bundles.length} bundles × ${COLD_START_ROUNDS} rounds, each after a bare start of its own`);
  const cold = await measureColdStarts(
    bundles.map((bundle) => bundle.file),
    COLD_START_ROUNDS,
  );
  const functions = bundles.map((bundle) => {
    const figures = cold.figures.get(bundle.file)!;
    return {
      handler: bundle.handler,
      bytes: bundle.bytes,
      chunkBytes: bundle.chunkBytes,
      ratio: figures.ratio,
      initMs: figures.initMs,
      fastestInitMs: figures.fastestMs,
      sendsMail: bundle.sendsMail,
      unused: bundle.unused.map((entry) => `${entry.module} (via ${entry.via.join(' → ')})`),
    };
  });
  return { bareStartMs: cold.bareStartMs, rounds: cold.rounds, loadAverage: cold.loadAverage, functions };
}

async function measureCold(): Promise<NonNullable<BenchResults['cold']>> {
  const bundleDir = await mkdtemp(join(tmpdir(), 'postlane-bench-'));
  return measureBundles(bundleDir).finally(() => rm(bundleDir, { recursive: true, force: true }));
}

async function main(): Promise<number> {
  const startedAt = performance.now();
  // Other work on the machine slows every timing: the report says how busy it was.
  const loadAtStart = loadavg()[0]!;
  // First, alone: a synth bundles every function and synthesizes both regions, all of it CPU.
  let synth: BenchResults['synth'];
  if (runs('synth')) {
    progress('timing npm run synth (both regions, every function bundled)');
    synth = await (await import('./synth.ts')).measureSynth();
  }
  // Cold starts first, before the local stack exists: a JVM starting DynamoDB Local would compete for the CPU they time.
  const cold = runs('cold') ? await measureCold() : undefined;
  // Also before the bench's own stack: each round boots and stops a JVM of its own.
  let localStart: BenchResults['localStart'];
  if (runs('start')) {
    progress(`timing npm start to ready: ${LOCAL_START_ROUNDS} rounds`);
    localStart = await measureLocalStart(LOCAL_START_ROUNDS);
  }
  const { MEMORY_MB } = await import('../lib/endpoint-function.ts');
  const needsStack = (['requests', 'scale', 'export', 'webhooks', 'load', 'broadcast', 'dashboard'] as const).some(runs);
  const stack = needsStack ? await startBenchStack() : undefined;
  try {
    const { requests, scale, bulkImport, audienceExport, webhooks, load, broadcast, dashboard } = stack ? await measureOnStack(stack) : {};
    const cost = requests ? costClasses(requests, bulkImport, MEMORY_MB) : undefined;
    const budgets = [
      ...(synth ? [checkSynth(synth.ms)] : []),
      ...(localStart ? [checkLocalStart(localStart.medianMs)] : []),
      ...(cold ? checkFunctions(cold.functions, cold.bareStartMs) : []),
      ...(requests ? checkRoundTrips(requests) : []),
      ...(scale ? checkScale(scale) : []),
      ...(bulkImport ? [checkBulkImport(bulkImport.roundTrips)] : []),
      ...(audienceExport ? [checkExport(audienceExport.ms)] : []),
      ...(webhooks ? checkWebhooks(webhooks) : []),
      ...(broadcast ? checkBroadcast(broadcast) : []),
      ...(dashboard ? checkDashboard(dashboard) : []),
    ];
    const results: BenchResults = {
      measuredAt: new Date().toISOString(),
      machine: {
        node: process.versions.node,
        cpus: cpus().length,
        cpuModel: cpus()[0]?.model.trim() ?? 'unknown CPU',
        loadAverage: [loadAtStart, loadavg()[0]!],
      },
      synth,
      cold,
      localStart,
      requests,
      load,
      scale,
      bulkImport,
      audienceExport,
      webhooks,
      broadcast,
      dashboard,
      memoryMb: MEMORY_MB,
      prices: PRICES,
      cost,
      budgets,
    };
    const markdown = toMarkdown(results);
    const alone = only?.length === 1 ? Object.entries(RECORDED_ALONE).find(([name, field]) => name === only[0] && results[field] !== undefined) : undefined;
    if (only === undefined) {
      await writeFile('bench/results/latest.json', `${JSON.stringify(results, null, 2)}\n`);
      await writeFile('bench/results/latest.md', `${markdown}\n`);
    } else if (alone) {
      await writeFile(`bench/results/${alone[0]}.json`, `${JSON.stringify(results[alone[1]], null, 2)}\n`);
      await writeFile(`bench/results/${alone[0]}.md`, `${markdown}\n`);
    }
    printReport(markdown);
    const written =
      only === undefined
        ? '; wrote bench/results/latest.json and bench/results/latest.md'
        : alone
          ? `; wrote bench/results/${alone[0]}.json and bench/results/${alone[0]}.md`
          : ` (--only ${only.join(',')}: bench/results/ left as it was)`;
    progress(`done in ${((performance.now() - startedAt) / 1000).toFixed(0)} s${written}`);
    return checked(budgets);
  } finally {
    await stack?.stop();
  }
}

/** With `--check`, 1 when a budget is not met (each one named on stderr). */
function checked(budgets: readonly BudgetResult[]): number {
  const failed = budgets.filter((budget) => !budget.ok);
  if (check && failed.length > 0) {
    for (const budget of failed) console.error(`budget not met: ${budget.budget}, ${budget.subject}: ${budget.detail}`);
    return 1;
  }
  return 0;
}

/** The broadcast section, its size and SES rate overridable from the command line (`--contacts`, `--rate`). */
async function measureBroadcastSection(
  api: string,
  meter: import('./dynamo-meter.ts').DynamoMeter,
  createBenchAccount: typeof import('./fixtures.ts').createBenchAccount,
) {
  const { BROADCAST_BENCH, measureBroadcast } = await import('./broadcast.ts');
  // Read here, not from BROADCAST_BENCH: that module is loaded (through report.ts) before `--rate` is applied to the environment.
  const options = {
    ...BROADCAST_BENCH,
    contacts: Number(argument('--contacts') ?? BROADCAST_BENCH.contacts),
    sesRate: Number(argument('--rate') ?? BROADCAST_BENCH.sesRate),
  };
  return measureBroadcast(api, meter, await createBenchAccount(), options, progress);
}

type StackSections = Pick<BenchResults, 'requests' | 'scale' | 'bulkImport' | 'audienceExport' | 'webhooks' | 'load' | 'broadcast' | 'dashboard'>;

/** The sections measured against the bench's local stack, those asked for. */
async function measureOnStack(stack: BenchStack): Promise<StackSections> {
  // Everything here reads shared/platform/config.ts, which the stack has pointed at the local services.
  const { meterDynamoDb } = await import('./dynamo-meter.ts');
  const { startHttpServer } = await import('#dev/local/http-server.ts');
  const { createBenchAccount, formBody, uniqueEmail } = await import('./fixtures.ts');
  const meter = meterDynamoDb();
  const results: StackSections = {};
  if (runs('requests') || runs('scale') || runs('export') || runs('broadcast') || runs('dashboard')) {
    const server = await startHttpServer({ port: stack.apiPort });
    if (runs('requests')) {
      progress('metering a typical request to each endpoint');
      const { buildScenarios } = await import('./scenarios.ts');
      const { measureRequest } = await import('./metered.ts');
      const floors = parseFloors(await readFile('docs/data-model.md', 'utf8'));
      results.requests = [];
      for (const scenario of await buildScenarios(server.url, await createBenchAccount())) {
        results.requests.push({
          name: scenario.name,
          floor: floors.get(scenario.name),
          ...(await measureRequest(server.url, meter, scenario.prepare, REQUEST_RUNS)),
        });
      }
    }
    if (runs('scale')) {
      progress('scale: loading audiences of 1,000, 10,000 and 100,000 contacts');
      const { measureBulkImport, measureScale } = await import('./scale.ts');
      const scaleAccount = await createBenchAccount();
      results.scale = await measureScale(server.url, meter, scaleAccount, SCALE_ROUNDS, progress);
      results.bulkImport = await measureBulkImport(server.url, meter, scaleAccount, 1_000);
    }
    if (runs('export')) {
      progress('export: an audience of 100,000 contacts to CSV');
      const { measureExport } = await import('./export.ts');
      results.audienceExport = await measureExport(server.url, meter, await createBenchAccount(), progress);
    }
    if (runs('broadcast')) results.broadcast = await measureBroadcastSection(server.url, meter, createBenchAccount);
    if (runs('dashboard')) {
      const { measureDashboard } = await import('./dashboard.ts');
      const { startRetryWorker } = await import('#dev/local/retry-worker.ts');
      // The worker that mails sign-in codes, as under `npm start`.
      const mail = await startRetryWorker();
      results.dashboard = await measureDashboard(server.url, stack.sesEndpoint, meter, progress).finally(() => mail.stop());
    }
    await server.close();
  }
  if (runs('webhooks')) {
    const { measureWebhooks } = await import('./webhooks.ts');
    results.webhooks = await measureWebhooks(meter, (await createBenchAccount()).accountId, undefined, progress);
  }
  if (runs('load')) {
    progress(`warm load: ${LOAD_CONNECTIONS} connections against the API in a process of its own`);
    const { runLoad } = await import('./load.ts');
    results.load = await runLoadSuite(await stack.startServerProcess(), { createBenchAccount, formBody, uniqueEmail, runLoad, expectCall });
  }
  return results;
}

/** Cost per million requests of each endpoint class whose request was measured. */
function costClasses(
  requests: NonNullable<BenchResults['requests']>,
  bulkImport: BenchResults['bulkImport'],
  memoryMb: number,
): NonNullable<BenchResults['cost']> {
  const requestNamed = (name: string) => requests.find((request) => request.name === name);
  const classes: [string, { name: string; ms: number; readUnits: number; writeUnits: number } | undefined][] = [
    ['create contact', requestNamed('POST /api/contacts')],
    ['get contact', requestNamed('GET /api/contacts/{id}')],
    ['list contacts', requestNamed('GET /api/contacts?audienceId')],
    ['audience stats', requestNamed('GET /api/audiences/{id}/stats')],
    ['send email (live, 1 recipient)', requestNamed('POST /api/email/send (live key, 1 recipient)')],
    ['batch send (100 emails)', requestNamed('POST /api/email/batch (test key, 100 emails)')],
    ['submit form', requestNamed('POST /api/forms/{id}/submit')],
    ['bulk import (1,000 contacts)', bulkImport && { ...bulkImport, name: 'POST /api/contacts/bulk (1,000 new)' }],
  ];
  return classes.flatMap(([name, request]) =>
    request
      ? [
          {
            name,
            request: request.name,
            durationMs: request.ms,
            readUnits: request.readUnits,
            writeUnits: request.writeUnits,
            ...costPerMillion({ durationMs: request.ms, memoryMb, readUnits: request.readUnits, writeUnits: request.writeUnits }),
          },
        ]
      : [],
  );
}

interface LoadTools {
  createBenchAccount: typeof import('./fixtures.ts').createBenchAccount;
  formBody: typeof import('./fixtures.ts').formBody;
  uniqueEmail: typeof import('./fixtures.ts').uniqueEmail;
  runLoad: typeof import('./load.ts').runLoad;
  expectCall: typeof expectCall;
}

/** The five endpoints of the issue under load, each on data made for it beforehand. */
async function runLoadSuite(url: string, tools: LoadTools) {
  const { createBenchAccount, formBody, uniqueEmail, runLoad } = tools;
  const account = await createBenchAccount(LOAD_KEYS);
  let turn = 0;
  const nextKey = (keys: string[]) => keys[turn++ % keys.length]!;
  const key = account.liveKeys[0]!;
  const audiences: string[] = [];
  for (let index = 0; index < 10; index++) {
    audiences.push((await tools.expectCall(url, 201, 'POST', '/api/audiences', { key, body: { name: `Load ${index}` } })).data.id);
  }
  const contactIds: string[] = [];
  for (let index = 0; index < 100; index++) {
    const body = { email: uniqueEmail('load'), audienceId: audiences[0], firstName: 'Load' };
    contactIds.push((await tools.expectCall(url, 201, 'POST', '/api/contacts', { key, body })).data.id);
  }
  const forms: string[] = [];
  for (let index = 0; index < SUBMIT_ACCOUNTS; index++) {
    const owner = await createBenchAccount();
    forms.push((await tools.expectCall(url, 201, 'POST', '/api/forms', { key: owner.liveKeys[0]!, body: formBody(`load-${process.pid}-${index}`) })).data.id);
  }
  const options = { connections: LOAD_CONNECTIONS, durationSeconds: LOAD_SECONDS };
  const results = [];
  progress('load: create contact');
  results.push(
    await runLoad(
      url,
      'create contact',
      {
        method: 'POST',
        next: () => ({
          path: '/api/contacts',
          key: nextKey(account.liveKeys),
          body: { email: uniqueEmail('load'), audienceId: audiences[turn % audiences.length], firstName: 'Load' },
        }),
      },
      options,
    ),
  );
  progress('load: get contact');
  results.push(
    await runLoad(
      url,
      'get contact',
      { method: 'GET', next: () => ({ path: `/api/contacts/${contactIds[turn % contactIds.length]}`, key: nextKey(account.liveKeys) }) },
      options,
    ),
  );
  progress('load: list contacts');
  results.push(
    await runLoad(
      url,
      'list contacts (page 1 of 20)',
      { method: 'GET', next: () => ({ path: `/api/contacts?audienceId=${audiences[0]}&limit=20`, key: nextKey(account.liveKeys) }) },
      options,
    ),
  );
  progress('load: send email');
  results.push(
    await runLoad(
      url,
      'send email (test key, 1 recipient)',
      {
        method: 'POST',
        next: () => ({
          path: '/api/email/send',
          key: nextKey(account.testKeys),
          body: { from: account.from, recipients: [uniqueEmail('load')], subject: 'Load', content: '<p>Load</p>' },
        }),
      },
      options,
    ),
  );
  progress('load: submit form');
  results.push(
    await runLoad(
      url,
      'submit form',
      {
        method: 'POST',
        next: () => ({ path: `/api/forms/${forms[turn++ % forms.length]}/submit`, body: { email: uniqueEmail('load'), firstName: 'Load' } }),
      },
      { connections: LOAD_CONNECTIONS, amount: SUBMIT_ACCOUNTS * SUBMITS_PER_ACCOUNT },
    ),
  );
  return results;
}

process.exitCode = await main();
