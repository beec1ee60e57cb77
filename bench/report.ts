/** The benchmark's results as markdown tables: what `npm run bench` prints and writes to bench/results/latest.md. */
import type { BroadcastBenchResults } from './broadcast.ts';
import type { BudgetResult, Floor } from './budgets.ts';
import type { DashboardBenchResults } from './dashboard.ts';
import { costPer1000Emails, estimatedLatencyMs, LATENCY, LIST_PRICES_PER_1000, PUBLISHED_P50_MS } from './anchors.ts';
import type { CostPerMillion, Prices } from './cost.ts';
import type { LoadResult } from './load.ts';
import type { LocalStart } from './local-start.ts';
import type { RequestCost } from './metered.ts';
import type { BulkImportCost, ScalePoint } from './scale.ts';
import type { ExportCost } from './export.ts';
import type { SynthTiming } from './synth.ts';
import type { WebhookBenchResults } from './webhooks.ts';

export interface ColdResults {
  /** Median of every bare start of the run: the Lambda runtime stand-in alone (bench/runtime-stand-in.mjs). */
  bareStartMs: number;
  rounds: number;
  /** The 1-minute load average before and after the cold starts were timed. */
  loadAverage: [number, number];
  functions: {
    handler: string;
    bytes: number;
    chunkBytes: number;
    ratio: number;
    initMs: number;
    fastestInitMs: number;
    sendsMail: boolean;
    unused: string[];
  }[];
}

/** A section is absent when `--only` left it out. */
export interface BenchResults {
  measuredAt: string;
  /** `loadAverage`: the 1-minute load average at the start and the end of the run. */
  machine: { node: string; cpus: number; cpuModel: string; loadAverage: [number, number] };
  cold?: ColdResults | undefined;
  localStart?: LocalStart | undefined;
  synth?: SynthTiming | undefined;
  requests?: ({ name: string; floor: Floor | undefined } & RequestCost)[] | undefined;
  load?: LoadResult[] | undefined;
  scale?: ScalePoint[] | undefined;
  bulkImport?: BulkImportCost | undefined;
  audienceExport?: ExportCost | undefined;
  webhooks?: WebhookBenchResults | undefined;
  broadcast?: BroadcastBenchResults | undefined;
  dashboard?: DashboardBenchResults | undefined;
  memoryMb: number;
  prices: Prices;
  cost?: ({ name: string; request: string; durationMs: number; readUnits: number; writeUnits: number } & CostPerMillion)[] | undefined;
  budgets: BudgetResult[];
}

function table(header: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

type Cell = string | number;

/**
 * A table declared column by column, each header beside how a row fills it, so a header and its cell cannot drift
 * apart: `section(title, ...columns(rows, [['p50', (row) => row.p50]]))`.
 */
function columns<Row>(rows: Row[], declared: [header: string, cell: (row: Row) => Cell][]): [string[], Cell[][]] {
  return [declared.map(([header]) => header), rows.map((row) => declared.map(([, cell]) => cell(row)))];
}

/** A titled table of the report: `#### title`, a blank line, the table. */
function section(title: string, header: string[], rows: (string | number)[][]): string {
  return `#### ${title}\n\n${table(header, rows)}`;
}

const ms = (value: number) => value.toFixed(1);
const units = (value: number) => (Number.isInteger(value) ? String(value) : value.toFixed(1));
const dollars = (value: number) => `$${value.toFixed(2)}`;

/** `[...lines, '']` when `value` was measured, else nothing. */
function when<T>(value: T | undefined, lines: (value: T) => string[]): string[] {
  return value === undefined ? [] : [...lines(value), ''];
}

function browserImportRows(imported: DashboardBenchResults['browserImport']): Cell[][] {
  const rows = `${imported.rows.toLocaleString('en-US')} rows`;
  return [
    [`Import from the browser, ${rows} (${(imported.fileBytes / 1e6).toFixed(1)} MB of CSV)`, `${(imported.ms / 1000).toFixed(1)} s: ${imported.status}`],
    [
      "Import from the browser: the page's share",
      `${(imported.pageShareMs / 1000).toFixed(1)} s not waiting for the API's answers to ${imported.bulkRequests} requests of POST /api/contacts/bulk`,
    ],
    [
      'Import from the browser: the page while it ran',
      `longest task ${imported.longestTaskMs.toFixed(0)} ms (${imported.longTasks} of 50 ms or more), longest gap between frames ${imported.longestFrameGapMs.toFixed(0)} ms (${imported.frames.toLocaleString('en-US')} frames), ${imported.reloads} reloads`,
    ],
    [
      'Import from the browser: afterwards',
      `${(imported.heapBytes / 1024 / 1024).toFixed(1)} MB of JavaScript heap; the audience counts ${imported.audienceCount.toLocaleString('en-US')}`,
    ],
  ];
}

function dashboardSection(dashboard: DashboardBenchResults): string[] {
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
  const { key, session } = dashboard.statsRead;
  return [
    section(
      'Dashboard',
      ['figure', 'measured'],
      [
        ['JavaScript for sign-in, gzipped', kb(dashboard.javascript.signIn)],
        ['JavaScript for sign-in + Overview, gzipped', kb(dashboard.javascript.overview)],
        ['API calls of the Overview load', `${dashboard.overviewCalls.length}: ${dashboard.overviewCalls.join(', ')}`],
        ['GET /api/stats (30 days), key: DynamoDB calls', `${key.roundTrips}: ${key.operations.join(', ')}`],
        ['GET /api/stats (30 days), session: DynamoDB calls', `${session.roundTrips}: ${session.operations.join(', ')}`],
        ...(Array.isArray(dashboard.lighthouse)
          ? dashboard.lighthouse.map((score): Cell[] => [
              `Lighthouse, ${score.page} (desktop)`,
              `performance ${score.performance}, accessibility ${score.accessibility} (FCP ${score.metrics.fcpMs.toFixed(0)} ms, LCP ${score.metrics.lcpMs.toFixed(0)} ms, TBT ${score.metrics.tbtMs.toFixed(0)} ms, CLS ${score.metrics.cls.toFixed(3)})`,
            ])
          : [['Lighthouse', `not run: ${dashboard.lighthouse.skipped}`]]),
        ...browserImportRows(dashboard.browserImport),
      ],
    ),
  ];
}

function coldSection(cold: ColdResults): string[] {
  const load = cold.loadAverage.map((figure) => figure.toFixed(1)).join(' → ');
  return [
    `Cold init: ${cold.rounds} rounds, each function imported by the Lambda runtime stand-in (bench/runtime-stand-in.mjs) right after a bare start of the stand-in alone; its ratio is the median over the rounds of (its start − that bare start) / that bare start. Bare start ${ms(cold.bareStartMs)} ms (median of all); load average ${load} while timing.`,
    '',
    section(
      'Functions: bundle and cold init',
      ...columns(cold.functions, [
        ['function', (fn) => fn.handler],
        ['sends mail', (fn) => (fn.sendsMail ? 'yes' : '')],
        ['bundle (minified)', (fn) => `${(fn.bytes / 1024).toFixed(0)} KB`],
        ['chunks loaded on first use', (fn) => `${(fn.chunkBytes / 1024).toFixed(0)} KB`],
        ['cold init over the bare start (median)', (fn) => `${ms(fn.initMs)} ms`],
        ['as a ratio of the bare start (median of rounds)', (fn) => `${fn.ratio.toFixed(2)}×`],
        ['fastest round', (fn) => `${ms(fn.fastestInitMs)} ms`],
        ['modules it never uses', (fn) => fn.unused.join(', ') || 'none'],
      ]),
    ),
  ];
}

export function toMarkdown(results: BenchResults): string {
  const failed = results.budgets.filter((budget) => !budget.ok);
  return [
    `Measured ${results.measuredAt} on ${results.machine.cpus} × ${results.machine.cpuModel}, Node ${results.machine.node}, load average ${results.machine.loadAverage.map((load) => load.toFixed(1)).join(' → ')}.`,
    '',
    ...when(results.localStart, (localStart) => [
      `\`npm start\` to \`ready\` (in memory, first start, ${localStart.rounds} rounds): ${(localStart.medianMs / 1000).toFixed(1)} s median, ${(localStart.fastestMs / 1000).toFixed(1)} s fastest.`,
    ]),
    ...when(results.synth, (synth) => [
      `\`npm run synth\` (both regions, ${synth.functionAssets} function assets): ${(synth.ms / 1000).toFixed(1)} s, load average ${synth.loadAverage.map((load) => load.toFixed(1)).join(' → ')}.`,
    ]),
    ...when(results.cold, coldSection),
    ...when(results.requests, (requests) => [
      section(
        'Requests: DynamoDB round trips and capacity',
        ...columns(requests, [
          ['request', (request) => `\`${request.name}\``],
          ['calls', (request) => request.roundTrips],
          ['depth', (request) => request.depth],
          ['floor (calls / depth)', (request) => (request.floor ? `${request.floor.calls} / ${request.floor.depth}` : '—')],
          ['RRU', (request) => units(request.readUnits)],
          ['WRU', (request) => units(request.writeUnits)],
          ['time (local)', (request) => `${ms(request.ms)} ms`],
        ]),
      ),
    ]),
    ...when(results.load, (load) => [
      section(
        'Warm load through the local HTTP server',
        ...columns(load, [
          ['endpoint', (row) => row.name],
          ['connections', (row) => row.connections],
          ['requests', (row) => row.requests],
          ['throughput', (row) => `${row.throughput.toFixed(0)}/s`],
          ['p50', (row) => `${row.p50Ms} ms`],
          ['p99', (row) => `${row.p99Ms} ms`],
          ['failed', (row) => row.failures],
        ]),
      ),
    ]),
    ...when(results.scale, (scale) => [
      section(
        'Scale: audiences of 1,000, 10,000 and 100,000 contacts (reads measured in interleaved rounds)',
        ['contacts', 'stats: trips / RRU / time', 'count (get audience): trips / RRU / time', 'list page 1 (50): trips / RRU / time'],
        scale.map((point) => [
          point.contacts.toLocaleString('en-US'),
          ...[point.stats, point.count, point.listPage1].map((read) => `${read.roundTrips} / ${units(read.readUnits)} / ${ms(read.ms)} ms`),
        ]),
      ),
    ]),
    ...when(results.bulkImport, (bulkImport) => [
      `Bulk import of ${bulkImport.contacts.toLocaleString('en-US')} new contacts: ${ms(bulkImport.ms)} ms, ${bulkImport.roundTrips} round trips, ${units(bulkImport.writeUnits)} WRU, ${units(bulkImport.readUnits)} RRU.`,
    ]),
    ...when(results.audienceExport, (exported) => [
      `Queued export of an audience of ${exported.contacts.toLocaleString('en-US')} contacts to CSV, POST to ready through the API and the local queue: ${ms(exported.ms)} ms (${ms(exported.cpuMs)} ms of the worker's CPU, ${exported.segments} parallel Queries; ${exported.failedPolls} polls answered 500 meanwhile), ${exported.roundTrips} round trips, ${units(exported.readUnits)} RRU, ${(exported.bytes / 1_000_000).toFixed(1)} MB.`,
    ]),
    ...(results.webhooks ? webhookSection(results.webhooks) : []),
    ...(results.broadcast ? broadcastSection(results.broadcast) : []),
    ...when(results.dashboard, dashboardSection),
    ...when(results.cost, (cost) => [
      section(
        `Estimated AWS cost per million requests (${results.prices.region}, prices of ${results.prices.checked})`,
        ['endpoint class', 'request measured', 'Lambda', 'DynamoDB', 'HTTP API', 'total'],
        cost.map((row) => [
          row.name,
          `\`${row.request}\`: ${Math.ceil(row.durationMs)} ms at ${results.memoryMb} MB, ${units(row.readUnits)} RRU, ${units(row.writeUnits)} WRU`,
          dollars(row.lambda),
          dollars(row.dynamo),
          dollars(row.apiGateway),
          dollars(row.total),
        ]),
      ),
      '',
      `Prices: Lambda arm64 $${results.prices.lambdaPerGbSecond} per GB-s and $${results.prices.lambdaPerMillionRequests} per million requests; DynamoDB on-demand $${results.prices.dynamoPerMillionReadUnits} per million RRU and $${results.prices.dynamoPerMillionWriteUnits} per million WRU; HTTP API $${results.prices.httpApiPerMillionRequests} per million requests. SES ($0.10 per 1,000 emails) and data transfer not included.`,
      '',
      ...anchors(cost, results.requests ?? []),
    ]),
    `#### Budgets (\`npm run bench -- --check\`): ${failed.length === 0 ? `all ${results.budgets.length} met` : `${failed.length} of ${results.budgets.length} not met`}`,
    ...(failed.length === 0
      ? []
      : [
          '',
          table(
            ['budget', 'subject', 'measured'],
            failed.map((budget) => [budget.budget, budget.subject, budget.detail]),
          ),
        ]),
  ].join('\n');
}

/** Estimated latency in AWS per endpoint class beside published p50s, and cost per 1,000 emails beside list prices. */
function anchors(cost: NonNullable<BenchResults['cost']>, requests: NonNullable<BenchResults['requests']>): string[] {
  const send = cost.find((row) => row.name.startsWith('send email'));
  const sends = (name: string) => name.includes('/send');
  const published = `Postmark ${PUBLISHED_P50_MS.postmark} ms, Resend ${PUBLISHED_P50_MS.resend} ms, Amazon SES ${PUBLISHED_P50_MS.ses} ms`;
  return [
    '#### Estimated latency in AWS (p50) from the measured depth',
    '',
    table(
      ['endpoint class', 'depth', 'estimated p50', 'published send p50 (Knock)'],
      cost.map((row) => {
        const depth = requests.find((request) => request.name === row.request)?.depth;
        return [
          row.name,
          depth ?? '—',
          depth === undefined ? '—' : `${estimatedLatencyMs(depth, sends(row.request))} ms`,
          sends(row.request) ? published : '—',
        ];
      }),
    ),
    '',
    `Per DynamoDB step ${LATENCY.dynamoCallMs} ms (AWS: "single-digit millisecond", the middle taken); SES SendEmail ${LATENCY.sesSendMs} ms (Knock's median for SES, from outside AWS: an upper bound). API Gateway and Lambda overhead not included. Published API p50s (${PUBLISHED_P50_MS.source}): ${published}.`,
    '',
    ...(send
      ? [
          `All-in AWS cost per 1,000 one-recipient emails: ${dollars(costPer1000Emails(send))} (the send request above plus SES $0.10); list prices per 1,000 (${LIST_PRICES_PER_1000.source}): Resend ${dollars(LIST_PRICES_PER_1000.resend)}, Postmark ${dollars(LIST_PRICES_PER_1000.postmark)}.`,
          '',
        ]
      : []),
  ];
}

export function webhookSection(webhooks: WebhookBenchResults): string[] {
  const { options } = webhooks;
  const per = (usage: WebhookBenchResults['fanOutPerEvent']) =>
    `${units(usage.roundTrips)} round trips, ${units(usage.writeUnits)} WRU, ${units(usage.readUnits)} RRU`;
  return [
    `#### Webhooks: ${options.events.toLocaleString('en-US')} events to ${options.endpoints} endpoints, one answering in ${options.slowMs} ms (${options.workers} workers, ${options.slowWorkers} more on the slow lane)`,
    '',
    `Recording an event (the request's share): ${per(webhooks.recordPerEvent)}. Fanning one out from the stream to ${options.endpoints} endpoints: ${per(webhooks.fanOutPerEvent)}, ${webhooks.fanOutMsPerEvent.toFixed(1)} ms of the fan-out function.`,
    `Delivering one to a receiver that answers at once: ${per(webhooks.perDelivery)}, ${webhooks.perDelivery.ms.toFixed(1)} ms of the delivery worker.`,
    '',
    perSendLine(webhooks.perSend, per),
    '',
    table(
      ['receivers', 'deliveries', 'latency from the event, p50', 'p99'],
      [
        [
          `${options.endpoints} fast, none slow (baseline)`,
          webhooks.baseline.deliveries,
          `${ms(webhooks.baseline.p50Ms)} ms`,
          `${ms(webhooks.baseline.p99Ms)} ms`,
        ],
        [`${options.endpoints - 1} fast`, webhooks.fast.deliveries, `${ms(webhooks.fast.p50Ms)} ms`, `${ms(webhooks.fast.p99Ms)} ms`],
        [`1 slow (${options.slowMs} ms)`, webhooks.slow.deliveries, `${ms(webhooks.slow.p50Ms)} ms`, `${ms(webhooks.slow.p99Ms)} ms`],
      ],
    ),
    '',
    `All delivered in ${webhooks.totalSeconds.toFixed(1)} s (the slow receiver's phase: ${options.slowEvents.toLocaleString('en-US')} events).`,
    '',
    ...hostileLines(webhooks),
  ];
}

/** Issue 27: another tenant's fast receivers beside a tenant who tries to keep a receiver that never answers off the slow lane. */
function hostileLines(webhooks: WebhookBenchResults): string[] {
  const { options, hostile } = webhooks;
  const row = (name: string, figures: WebhookBenchResults['baseline']) => [name, figures.deliveries, `${ms(figures.p50Ms)} ms`, `${ms(figures.p99Ms)} ms`];
  return [
    `A tenant who tries: ${options.hostile.endpoints} endpoints at a receiver that never answers, a new URL for each every ${options.hostile.urlEveryMs} ms (${hostile.urlChanges} changes), a test event every ${options.hostile.testEveryMs} ms (${hostile.testEvents.accepted} accepted, ${hostile.testEvents.refused} refused with 429); ${hostile.hostileAttempts} attempts reached its receiver. Beside it another tenant's ${options.endpoints} fast receivers get one event every ${options.hostile.eventEveryMs} ms, measured once the first ${options.hostile.onsetMs / 1000} s are over (the hostile receiver's first attempts, before it is marked slow, hold their workers until the timeout):`,
    '',
    table(
      ['the other tenant', 'deliveries', 'latency from the event, p50', 'p99'],
      [
        row('alone (baseline)', hostile.baseline),
        row('beside the hostile tenant, first seconds', hostile.onset),
        row('beside the hostile tenant, after', hostile.fast),
      ],
    ),
    '',
  ];
}

/** Per one-recipient send with one endpoint subscribed to every event (issue 18 item 9). */
function perSendLine(perSend: WebhookBenchResults['perSend'], per: (usage: WebhookBenchResults['fanOutPerEvent']) => string): string {
  const stage = (name: string, usage: WebhookBenchResults['perDelivery']) => `${name} ${per(usage)}, ${usage.ms.toFixed(1)} ms`;
  return [
    `Per send (one recipient, one endpoint subscribed to every event; ${perSend.sends} sends): ${units(perSend.events)} events written, ${units(perSend.deliveries)} deliveries made;`,
    `${stage('the request (its events included)', perSend.request)}; ${stage('fan-out', perSend.fanOut)}; ${stage('delivery', perSend.delivery)}.`,
  ].join(' ');
}

/** Issue 17: the broadcast's rate against SES's, its cost per message, and per 1,000 beside the list prices. */
export function broadcastSection(broadcast: BroadcastBenchResults): string[] {
  const { options, perMessage, costPer1000: cost } = broadcast;
  const count = (value: number) => value.toLocaleString('en-US');
  return [
    `#### Broadcast: ${count(options.contacts)} contacts, SES stand-in accepting ${options.sesRate} messages/s (${options.sesLatencyMs} ms each), ${options.workers} workers`,
    '',
    `${count(broadcast.counts.recipients)} recipients planned (every ${options.unsubscribedEvery}th contact unsubscribed, every ${options.suppressedEvery}th address suppressed): ${count(broadcast.counts.sent)} sent, ${count(broadcast.counts.suppressed)} skipped, ${count(broadcast.counts.failed)} failed; ${count(broadcast.accepted)} accepted by the stand-in, ${broadcast.duplicates} second copies, ${count(broadcast.throttled)} SendEmail calls throttled.`,
    '',
    table(
      ['rate', "as a ratio of SES's", 'first message', 'all sent', 'Lambda per message', 'DynamoDB per message', 'SQS requests per message'],
      [
        [
          `${broadcast.messagesPerSecond.toFixed(1)}/s`,
          broadcast.rateRatio.toFixed(2),
          `${ms(broadcast.firstMessageMs)} ms`,
          `${broadcast.totalSeconds.toFixed(0)} s`,
          `${perMessage.lambdaMs.toFixed(2)} ms (${broadcast.invocations} invocations)`,
          `${perMessage.roundTrips.toFixed(2)} calls, ${perMessage.readUnits.toFixed(2)} RRU, ${perMessage.tableWriteUnits.toFixed(2)} WRU (${perMessage.writeUnits.toFixed(2)} with index entries)`,
          perMessage.sqsRequests.toFixed(2),
        ],
      ],
    ),
    '',
    `All-in AWS cost per 1,000 broadcast emails: ${dollars4(cost.total)} (Lambda at ${broadcast.memoryMb} MB ${dollars4(cost.lambda)}, DynamoDB ${dollars4(cost.dynamo)}, SQS ${dollars4(cost.sqs)}, SES ${dollars4(cost.ses)}); list prices per 1,000 (${LIST_PRICES_PER_1000.source}): Resend ${dollars(LIST_PRICES_PER_1000.resend)}, Postmark ${dollars(LIST_PRICES_PER_1000.postmark)}.`,
    '',
  ];
}

const dollars4 = (value: number) => `$${value.toFixed(4)}`;
