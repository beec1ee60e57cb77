/** The benchmark's pure parts: what it flags, how it reads the documented minimums, its cost arithmetic. */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkBroadcast, checkDashboard, checkFunctions, checkRoundTrips, checkScale, checkWebhooks, parseFloors } from '../../bench/budgets.ts';
import { BROADCAST_BENCH, broadcastCostPer1000, type BroadcastBenchResults } from '../../bench/broadcast.ts';
import { WEBHOOK_BENCH } from '../../bench/webhooks.ts';
import { deployedFunctions, functionUse, unusedHeavyModules } from '../../bench/bundles.ts';
import { coldFigures } from '../../bench/cold-start.ts';
import { costPerMillion, PRICES } from '../../bench/cost.ts';
import { toMarkdown } from '../../bench/report.ts';

const SES_INPUT = 'node_modules/@aws-sdk/client-sesv2/dist-es/index.js';
const LIQUID_INPUT = 'node_modules/liquidjs/dist/liquid.node.mjs';

describe('unused heavy modules', () => {
  it('flags the SES client and liquidjs in a function that sends no mail', () => {
    expect(unusedHeavyModules(['functions/forms/list.ts', SES_INPUT, LIQUID_INPUT], functionUse('forms/list'))).toEqual(['SES client', 'liquidjs']);
  });

  it('allows them where the route table says the function sends, and liquidjs where templates are rendered', () => {
    expect(unusedHeavyModules([SES_INPUT, LIQUID_INPUT], functionUse('email/send'))).toEqual([]);
    expect(unusedHeavyModules([LIQUID_INPUT], functionUse('templates/render'))).toEqual([]);
    expect(unusedHeavyModules([SES_INPUT], functionUse('domains/create'))).toEqual([]);
    expect(unusedHeavyModules([SES_INPUT], functionUse('domains/list'))).toEqual(['SES client']);
  });

  it('allows the SDK default credential chain nowhere: every bundle carries the Lambda providers instead', () => {
    expect(unusedHeavyModules(['node_modules/@aws-sdk/credential-provider-node/dist-es/defaultProvider.js'], functionUse('email/send'))).toEqual([
      'default credential chain',
    ]);
  });
});

describe('round-trip budget', () => {
  it('reads the floors, calls and depth, from the table in docs/data-model.md', () => {
    const floors = parseFloors(readFileSync('docs/data-model.md', 'utf8'));
    expect(floors.get('GET /api/contacts/{id}')).toEqual({ calls: 2, depth: 2 });
    expect(floors.get('POST /api/email/send (live key, 1 recipient)')).toEqual({ calls: 6, depth: 4 });
  });

  it('allows one call and one step over the floor, not two, and fails a request with no documented floor', () => {
    const floor = { calls: 3, depth: 2 };
    const results = checkRoundTrips([
      { name: 'one over', roundTrips: 4, depth: 3, floor },
      { name: 'two calls over', roundTrips: 5, depth: 2, floor },
      { name: 'two steps over', roundTrips: 3, depth: 4, floor },
      { name: 'undocumented', roundTrips: 1, depth: 1, floor: undefined },
    ]);
    expect(results.map((result) => result.ok)).toEqual([true, false, false, false]);
  });
});

describe('cold init budget', () => {
  it("is each function's own ratio to the bare starts of its rounds: 0.5× without mail, 0.7× for functions that send", () => {
    const fn = (ratio: number, sendsMail: boolean) => ({ handler: `${ratio}`, sendsMail, ratio, initMs: ratio * 100, unused: [] });
    const results = checkFunctions([fn(0.5, false), fn(0.6, false), fn(0.7, true), fn(0.8, true)], 100);
    expect(results.filter((result) => result.budget === 'cold init').map((result) => result.ok)).toEqual([true, false, true, false]);
  });
});

describe('cold init measurement', () => {
  it('takes the median of per-round ratios, so a busy round that slows both starts of its pair moves nothing', () => {
    const quiet = { bareMs: 100, loadMs: 140 };
    const busy = { bareMs: 400, loadMs: 560 };
    expect(coldFigures([quiet, busy, quiet, busy, busy], 100).ratio).toBeCloseTo(0.4, 6);
  });

  it("reports the fastest round against the fastest bare start of the run, never a bare start slower than the function's best", () => {
    const figures = coldFigures(
      [
        { bareMs: 300, loadMs: 150 },
        { bareMs: 120, loadMs: 190 },
      ],
      90,
    );
    expect(figures.fastestMs).toBe(60);
  });

  it('measures every deployed function: each handler module under functions/, the workers included', async () => {
    const modules = readdirSync('functions', { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && !/(^|\/)(contract|routes)\.ts$/.test(file))
      .map((file) => file.replace(/\.ts$/, ''));
    const measured = [...(await deployedFunctions()).keys()];
    expect(measured.sort()).toEqual(modules.sort());
    expect(measured).toEqual(
      expect.arrayContaining(['webhooks/deliver', 'events/fan-out', 'broadcasts/work', 'email/send-queued', 'emails/list', 'email/batch']),
    );
  });
});

describe('O(1) at scale', () => {
  const read = (readUnits: number, ms: number) => ({ roundTrips: 3, depth: 2, readUnits, writeUnits: 1, ms });
  const point = (contacts: number, stats: ReturnType<typeof read>) => ({ contacts, stats, count: read(4, 10), listPage1: read(7.5, 20) });

  it('passes reads that cost the same at every size and fails one whose read units grow', () => {
    const flat = checkScale([point(1_000, read(3, 10)), point(100_000, read(3, 12))]);
    const growing = checkScale([point(1_000, read(3, 10)), point(100_000, read(300, 12))]);
    expect(flat.every((result) => result.ok)).toBe(true);
    expect(growing.find((result) => result.subject === 'stats at 100,000')?.ok).toBe(false);
  });
});

describe('dashboard budgets', () => {
  const measured = {
    javascript: { signIn: 117 * 1024, overview: 143 * 1024 },
    overviewCalls: ['GET /api/session', 'GET /api/stats', 'GET /api/emails'],
    statsRead: { key: { roundTrips: 2, operations: ['UpdateItem', 'Query'] }, session: { roundTrips: 5, operations: [] } },
    lighthouse: { skipped: 'the npm package lighthouse is not installed' },
    browserImport: {
      rows: 100_000,
      fileBytes: 6e6,
      ms: 120_000,
      longestTaskMs: 80,
      longTasks: 3,
      longestFrameGapMs: 90,
      frames: 7000,
      bulkRequests: 100,
      pageShareMs: 10_000,
      heapBytes: 20 * 1024 * 1024,
      audienceCount: 100_000,
      reloads: 0,
      status: 'Import finished.',
    },
  };
  const failed = (figures: Parameters<typeof checkDashboard>[0]) =>
    checkDashboard(figures)
      .filter((budget) => !budget.ok)
      .map((budget) => budget.budget);

  it('holds sign-in plus the Overview to 150 KB, the Overview to 3 API calls and 30 days of statistics to 2 DynamoDB calls', () => {
    expect(failed(measured)).toEqual([]);
    expect(
      failed({
        ...measured,
        javascript: { signIn: 0, overview: 150 * 1024 + 1 },
        overviewCalls: [...measured.overviewCalls, 'GET /api/usage'],
        statsRead: { ...measured.statsRead, key: { roundTrips: 3, operations: [] } },
      }),
    ).toEqual(['dashboard JavaScript', 'dashboard API calls', 'round trips']);
  });

  it("holds the import of 100,000 rows from the browser to every row counted, no reload, the page's tenth of the time, 200 ms tasks and frames and 64 MB of heap", () => {
    const imported = measured.browserImport;
    expect(
      [
        { audienceCount: 99_999 },
        { reloads: 1 },
        { ms: 15 * 60_000 + 1, pageShareMs: 0 },
        { pageShareMs: 12_001 },
        { longestTaskMs: 201 },
        { longestFrameGapMs: 201 },
        { frames: 0 },
        { heapBytes: 64 * 1024 * 1024 + 1 },
      ].map((change) => failed({ ...measured, browserImport: { ...imported, ...change } })),
    ).toEqual([
      ['browser import'],
      ['browser import'],
      ['browser import'],
      ['browser import, the page’s share'],
      ['browser import responsive'],
      ['browser import responsive'],
      ['browser import responsive'],
      ['browser import memory'],
    ]);
  });

  it("checks Lighthouse's 90 for performance and 100 for accessibility on each page when it ran, and says in the report when it did not", () => {
    const scores = [
      { page: 'Overview', performance: 90, accessibility: 100, metrics: { fcpMs: 500, lcpMs: 900, tbtMs: 0, cls: 0 } },
      { page: 'Emails', performance: 95, accessibility: 98, metrics: { fcpMs: 500, lcpMs: 700, tbtMs: 0, cls: 0 } },
    ];
    expect(
      checkDashboard({ ...measured, lighthouse: scores })
        .filter((budget) => budget.budget === 'Lighthouse')
        .map((budget) => [budget.subject, budget.ok]),
    ).toEqual([
      ['Overview', true],
      ['Emails', false],
    ]);
    const report = toMarkdown({
      measuredAt: '',
      machine: { node: '20', cpus: 2, cpuModel: 'x', loadAverage: [0, 0] },
      dashboard: measured,
      memoryMb: 1024,
      prices: PRICES,
      budgets: [],
    });
    expect(report).toContain('| Lighthouse | not run: the npm package lighthouse is not installed |');
  });
});

describe('cost per million requests', () => {
  it('prices Lambda GB-seconds, DynamoDB units and the HTTP API request', () => {
    const cost = costPerMillion({ durationMs: 100, memoryMb: 1024, readUnits: 2, writeUnits: 1 });
    expect(cost.lambda).toBeCloseTo(0.1 * PRICES.lambdaPerGbSecond * 1e6 + PRICES.lambdaPerMillionRequests, 6);
    expect(cost.dynamo).toBeCloseTo(2 * PRICES.dynamoPerMillionReadUnits + PRICES.dynamoPerMillionWriteUnits, 6);
    expect(cost.apiGateway).toBe(PRICES.httpApiPerMillionRequests);
    expect(cost.total).toBeCloseTo(cost.lambda + cost.dynamo + cost.apiGateway, 6);
  });

  it('bills duration rounded up to the millisecond', () => {
    expect(costPerMillion({ durationMs: 10.2, memoryMb: 1024, readUnits: 0, writeUnits: 0 }).lambda).toBeCloseTo(
      costPerMillion({ durationMs: 11, memoryMb: 1024, readUnits: 0, writeUnits: 0 }).lambda,
      9,
    );
  });
});

describe('webhook budgets', () => {
  const figures = (overrides: Partial<import('../../bench/webhooks.ts').WebhookBenchResults> = {}) => ({
    options: WEBHOOK_BENCH,
    recordPerEvent: { roundTrips: 1, readUnits: 0, writeUnits: 4 },
    fanOutPerEvent: { roundTrips: 6, readUnits: 1, writeUnits: 5 },
    fanOutMsPerEvent: 3,
    perDelivery: { roundTrips: 4, readUnits: 1, writeUnits: 4, ms: 5 },
    perSend: {
      sends: 20,
      events: 1,
      deliveries: 1,
      request: { roundTrips: 8, readUnits: 4, writeUnits: 10, ms: 20 },
      fanOut: { roundTrips: 3, readUnits: 1, writeUnits: 1, ms: 3 },
      delivery: { roundTrips: 4, readUnits: 1, writeUnits: 4, ms: 5 },
    },
    baseline: { deliveries: 5000, p50Ms: 40, p99Ms: 200 },
    fast: { deliveries: 4000, p50Ms: 45, p99Ms: 260 },
    slow: { deliveries: 1000, p50Ms: 2100, p99Ms: 2400 },
    totalSeconds: 30,
    hostile: {
      baseline: { deliveries: 1000, p50Ms: 30, p99Ms: 150 },
      fast: { deliveries: 1000, p50Ms: 35, p99Ms: 200 },
      onset: { deliveries: 650, p50Ms: 40, p99Ms: 9000 },
      urlChanges: 45,
      testEvents: { accepted: 30, refused: 270 },
      hostileAttempts: 30,
    },
    ...overrides,
  });
  const failing = (results: ReturnType<typeof checkWebhooks>) => results.filter((result) => !result.ok).map((result) => result.subject);

  it('passes one write per event, a query and a put per endpoint, and fast receivers within noise of their baseline', () => {
    expect(failing(checkWebhooks(figures()))).toEqual([]);
  });

  it('flags a request that fans out inline, a fan-out past one put per endpoint, and fast receivers held up by the slow one or a hostile tenant', () => {
    const inline = figures({ recordPerEvent: { roundTrips: 12, readUnits: 1, writeUnits: 9 } });
    const wasteful = figures({ fanOutPerEvent: { roundTrips: 11, readUnits: 5, writeUnits: 5 } });
    const held = figures({ fast: { deliveries: 4000, p50Ms: 1900, p99Ms: 2300 } });
    const attacked = figures();
    attacked.hostile = { ...attacked.hostile, fast: { deliveries: 1000, p50Ms: 7200, p99Ms: 13_400 } };
    expect(failing(checkWebhooks(inline))).toEqual(['recording an event']);
    expect(failing(checkWebhooks(wasteful))).toEqual([`fan-out to ${WEBHOOK_BENCH.endpoints} endpoints`]);
    expect(failing(checkWebhooks(held))).toEqual(['a slow receiver delays no other']);
    expect(failing(checkWebhooks(attacked))).toEqual(['a hostile tenant delays no other']);
  });
});

describe('report of a partial run (--only)', () => {
  it('shows the sections measured, with the load average of the cold starts, and nothing of the others', () => {
    const markdown = toMarkdown({
      measuredAt: '2026-11-24T08:00:00.000Z',
      machine: { node: '20', cpus: 2, cpuModel: 'CPU', loadAverage: [1, 2] },
      cold: {
        bareStartMs: 90,
        rounds: 15,
        loadAverage: [0.5, 0.7],
        functions: [{ handler: 'contacts/get', bytes: 270_000, chunkBytes: 20_000, ratio: 0.42, initMs: 38, fastestInitMs: 31, sendsMail: false, unused: [] }],
      },
      memoryMb: 512,
      prices: PRICES,
      budgets: [],
    });
    expect(markdown).toContain('| contacts/get |  | 264 KB | 20 KB | 38.0 ms | 0.42× | 31.0 ms | none |');
    expect(markdown).toContain('load average 0.5 → 0.7 while timing');
    expect(markdown).not.toMatch(/Requests|Warm load|Scale|cost per million/);
  });
});

describe('broadcast budgets', () => {
  const perMessage = { roundTrips: 1.4, readUnits: 1.2, writeUnits: 8.3, tableWriteUnits: 2.3, lambdaMs: 20, sqsRequests: 0.05 };
  const figures = (overrides: Partial<BroadcastBenchResults> = {}): BroadcastBenchResults => ({
    options: BROADCAST_BENCH,
    counts: { recipients: 1000, sent: 1000, suppressed: 0, failed: 0 },
    accepted: 1000,
    duplicates: 0,
    throttled: 0,
    firstMessageMs: 900,
    totalSeconds: 12,
    messagesPerSecond: 0.9 * BROADCAST_BENCH.sesRate,
    rateRatio: 0.9,
    invocations: 21,
    perMessage,
    memoryMb: 512,
    costPer1000: broadcastCostPer1000(perMessage, 0.021, 512),
    ...overrides,
  });
  const failing = (results: ReturnType<typeof checkBroadcast>) => results.filter((result) => !result.ok).map((result) => result.budget);

  it('passes 90% of the SES rate and 2.5 write units of table items per message, whatever the index entries add', () => {
    expect(failing(checkBroadcast(figures()))).toEqual([]);
  });

  it('flags a rate under 90%, more than 2.5 table write units, and a second copy or an uncounted message', () => {
    expect(failing(checkBroadcast(figures({ rateRatio: 0.89 })))).toEqual(['broadcast rate']);
    expect(failing(checkBroadcast(figures({ perMessage: { ...perMessage, tableWriteUnits: 2.6 } })))).toEqual(['broadcast writes']);
    expect(failing(checkBroadcast(figures({ duplicates: 1 })))).toEqual(['broadcast exactly once']);
    expect(failing(checkBroadcast(figures({ accepted: 1001 })))).toEqual(['broadcast exactly once']);
  });

  it("costs per 1,000 the workers' Lambda time and invocations, every write unit, SQS requests, and SES at $0.10", () => {
    const cost = broadcastCostPer1000({ ...perMessage, lambdaMs: 1000, readUnits: 0, writeUnits: 1, sqsRequests: 1 }, 1, 1024, PRICES);
    expect(cost.lambda).toBeCloseTo(PRICES.lambdaPerGbSecond * 1000 + PRICES.lambdaPerMillionRequests / 1000, 8);
    expect(cost.dynamo).toBeCloseTo(PRICES.dynamoPerMillionWriteUnits / 1000);
    expect(cost.sqs).toBeCloseTo(PRICES.sqsPerMillionRequests / 1000);
    expect(cost.total).toBeCloseTo(cost.lambda + cost.dynamo + cost.sqs + 0.1);
  });
});
