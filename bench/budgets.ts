/**
 * The budgets `npm run bench -- --check` enforces, as pure functions of the
 * measured figures so that they are tested without running the benchmark.
 */
import type { ScalePoint } from './scale.ts';
import type { WebhookBenchResults } from './webhooks.ts';

export const BUDGETS = {
  /** ms over a bare Node start. */
  coldInitMs: { withoutMail: 60, withMail: 80 },
  /** Round trips allowed above the documented minimum of each request. */
  roundTripsOverMinimum: 1,
  bulkImport1000RoundTrips: 80,
  /** A read that is O(1) may take at most this much longer at 100,000 contacts than at 1,000 (timing noise on a shared machine). */
  flatTime: { factor: 2, slackMs: 5 },
  /** `npm start` to `ready`, in memory (issue 15: under 10 s on an idle 2-core machine). */
  localStartMs: 10_000,
  /** Issue 18: recording an event is one write; its fan-out one query of the endpoints and one put per endpoint. */
  webhooks: {
    recordRoundTrips: 1,
    fanOutRoundTripsPerEndpoint: 1,
    fanOutBaseRoundTrips: 1,
    /** The fast receivers' p99 beside a slow one, against their p99 when none is slow (timing noise on a shared machine). */
    slowNeighbour: { factor: 1.5, slackMs: 250 },
  },
} as const;

export interface BudgetResult {
  budget: string;
  subject: string;
  ok: boolean;
  detail: string;
}

export interface FunctionFigures {
  handler: string;
  sendsMail: boolean;
  initMs: number;
  unused: string[];
}

export function checkFunctions(functions: readonly FunctionFigures[]): BudgetResult[] {
  return functions.flatMap((fn) => {
    const limit = fn.sendsMail ? BUDGETS.coldInitMs.withMail : BUDGETS.coldInitMs.withoutMail;
    return [
      { budget: 'cold init', subject: fn.handler, ok: fn.initMs <= limit, detail: `${fn.initMs.toFixed(0)} ms (budget ${limit} ms)` },
      { budget: 'unused modules', subject: fn.handler, ok: fn.unused.length === 0, detail: fn.unused.length === 0 ? 'none' : fn.unused.join(', ') },
    ];
  });
}

export interface RequestFigures {
  name: string;
  roundTrips: number;
  /** From docs/data-model.md; undefined when the table has no row for the request. */
  minimum: number | undefined;
}

export function checkRoundTrips(requests: readonly RequestFigures[]): BudgetResult[] {
  return requests.map((request) => {
    if (request.minimum === undefined)
      return { budget: 'round trips', subject: request.name, ok: false, detail: 'no documented minimum in docs/data-model.md' };
    const limit = request.minimum + BUDGETS.roundTripsOverMinimum;
    return {
      budget: 'round trips',
      subject: request.name,
      ok: request.roundTrips <= limit,
      detail: `${request.roundTrips} (minimum ${request.minimum}, budget ${limit})`,
    };
  });
}

/** Stats and counts read the counters item: the same round trips and units at every size, and time within noise of the smallest. */
export function checkScale(points: readonly ScalePoint[]): BudgetResult[] {
  const [first, ...rest] = points;
  if (!first) return [];
  return (['stats', 'count'] as const).flatMap((read) =>
    rest.map((point) => {
      const base = first[read];
      const now = point[read];
      const timeLimit = base.ms * BUDGETS.flatTime.factor + BUDGETS.flatTime.slackMs;
      const ok = now.roundTrips === base.roundTrips && now.readUnits === base.readUnits && now.ms <= timeLimit;
      return {
        budget: 'O(1) at scale',
        subject: `${read} at ${point.contacts.toLocaleString('en-US')}`,
        ok,
        detail: `${now.roundTrips} round trips, ${now.readUnits} RRU, ${now.ms.toFixed(1)} ms (at ${first.contacts.toLocaleString('en-US')}: ${base.roundTrips}, ${base.readUnits} RRU, ${base.ms.toFixed(1)} ms)`,
      };
    }),
  );
}

export function checkLocalStart(medianMs: number): BudgetResult {
  const limit = BUDGETS.localStartMs;
  return {
    budget: 'local start',
    subject: 'npm start to ready',
    ok: medianMs <= limit,
    detail: `${(medianMs / 1000).toFixed(1)} s (budget ${limit / 1000} s)`,
  };
}

export function checkBulkImport(roundTrips: number): BudgetResult {
  const limit = BUDGETS.bulkImport1000RoundTrips;
  return { budget: 'bulk import', subject: '1,000 contacts', ok: roundTrips <= limit, detail: `${roundTrips} round trips (budget ${limit})` };
}

/**
 * The minimum round trips per request from the table under "Round trips per
 * request" in docs/data-model.md: `| \`GET /api/contacts/{id}\` | 3 | ... |`.
 */
export function parseMinimums(markdown: string): Map<string, number> {
  const section = markdown.split(/^## Round trips per request.*$/m)[1]?.split(/^## /m)[0] ?? '';
  const minimums = new Map<string, number>();
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    const name = cells[1]?.replace(/`/g, '');
    const minimum = Number(cells[2]);
    if (name && cells[2] !== '' && Number.isInteger(minimum)) minimums.set(name, minimum);
  }
  return minimums;
}

/**
 * Issue 18: the request pays one write per event, the fan-out a query and a put
 * per endpoint, and a slow receiver delays nobody else: the fast receivers'
 * p99 beside it stays within noise of their p99 when no receiver is slow.
 */
export function checkWebhooks(webhooks: WebhookBenchResults): BudgetResult[] {
  const { recordRoundTrips, fanOutBaseRoundTrips, fanOutRoundTripsPerEndpoint } = BUDGETS.webhooks;
  const fanOutLimit = fanOutBaseRoundTrips + fanOutRoundTripsPerEndpoint * webhooks.options.endpoints;
  const { factor, slackMs } = BUDGETS.webhooks.slowNeighbour;
  const isolationLimit = webhooks.baseline.p99Ms * factor + slackMs;
  return [
    {
      budget: 'webhooks',
      subject: 'recording an event',
      ok: webhooks.recordPerEvent.roundTrips <= recordRoundTrips,
      detail: `${webhooks.recordPerEvent.roundTrips} round trips (budget ${recordRoundTrips})`,
    },
    {
      budget: 'webhooks',
      subject: `fan-out to ${webhooks.options.endpoints} endpoints`,
      ok: webhooks.fanOutPerEvent.roundTrips <= fanOutLimit,
      detail: `${webhooks.fanOutPerEvent.roundTrips} round trips per event (budget ${fanOutLimit})`,
    },
    {
      budget: 'webhooks',
      subject: 'a slow receiver delays no other',
      ok: webhooks.fast.deliveries > 0 && webhooks.fast.p99Ms <= isolationLimit,
      detail: `fast receivers' p99 ${webhooks.fast.p99Ms.toFixed(0)} ms beside a slow one, ${webhooks.baseline.p99Ms.toFixed(0)} ms without (budget ${isolationLimit.toFixed(0)} ms)`,
    },
  ];
}
