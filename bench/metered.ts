/** Requests measured one at a time: DynamoDB round trips and capacity (the client's meter) and time. */
import type { DynamoMeter } from './dynamo-meter.ts';
import { median } from './cold-start.ts';
import { call } from './stack.ts';
import type { Call } from './scenarios.ts';

/** Where a bench section reports what it is doing, for the operator watching a long run (bench/run.ts writes it to stderr). */
export type Progress = (message: string) => void;

export interface RequestCost {
  roundTrips: number;
  /** Sequential steps of DynamoDB calls (bench/dynamo-meter.ts). */
  depth: number;
  readUnits: number;
  writeUnits: number;
  /** Time of the whole request through the local server, ms. */
  ms: number;
}

/** One request, metered; fails the benchmark unless it answers the expected status. */
export async function measureOnce(api: string, meter: DynamoMeter, request: Call): Promise<RequestCost> {
  meter.reset();
  const started = performance.now();
  const reply = await call(api, request.method, request.path, request);
  const ms = performance.now() - started;
  if (reply.status !== request.status) {
    throw new Error(`${request.method} ${request.path}: expected ${request.status}, got ${reply.status} ${JSON.stringify(reply.body).slice(0, 300)}`);
  }
  const { roundTrips, depth, readUnits, writeUnits } = meter.usage();
  return { roundTrips, depth, readUnits, writeUnits, ms };
}

/** The median of each figure. */
export function medianCost(samples: readonly RequestCost[]): RequestCost {
  const pick = (figure: keyof RequestCost) => median(samples.map((sample) => sample[figure]));
  return { roundTrips: pick('roundTrips'), depth: pick('depth'), readUnits: pick('readUnits'), writeUnits: pick('writeUnits'), ms: pick('ms') };
}

/**
 * Runs `prepare` then the request `runs` times, after one unmeasured warm-up
 * (it loads the handler module and writes the key's `lastUsedAt`), and takes
 * the median of each figure.
 */
export async function measureRequest(api: string, meter: DynamoMeter, prepare: () => Promise<Call>, runs: number): Promise<RequestCost> {
  await measureOnce(api, meter, await prepare());
  const samples: RequestCost[] = [];
  for (let run = 0; run < runs; run++) samples.push(await measureOnce(api, meter, await prepare()));
  return medianCost(samples);
}
