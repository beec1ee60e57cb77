/**
 * Cold init of a function: the time a fresh Node process takes to load its
 * bundle (`node bundle.mjs`: its top level runs: configuration, SDK clients, middleware
 * chain) minus the time of a bare `node -e ''`. Runs are interleaved, one of
 * each bundle and one bare per round, so load from other processes on the
 * machine falls on all of them alike; the median of the rounds is reported.
 */
import { spawnSync } from 'node:child_process';

/** Lambda runs Node 22+, where the SDK prints no warning about the Node version; this machine runs 20. */
const CHILD_ENV = { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };

function timeNode(args: string[]): number {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { env: CHILD_ENV, stdio: ['ignore', 'ignore', 'pipe'] });
  const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} failed: ${result.stderr.toString().trim().split('\n').slice(-3).join(' | ')}`);
  return elapsed;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export interface ColdStart {
  /** Median ms of a bare `node -e ''`. */
  bareNodeMs: number;
  /** Median ms over the bare start, per bundle file. */
  initMs: Map<string, number>;
  /** The fastest round's load less the fastest bare start: what the bundle costs when nothing else competes for the CPU. */
  fastestMs: Map<string, number>;
}

export async function measureColdStarts(files: readonly string[], rounds: number): Promise<ColdStart> {
  const bare: number[] = [];
  const loads = new Map<string, number[]>(files.map((file) => [file, []]));
  for (let round = 0; round < rounds; round++) {
    bare.push(timeNode(['-e', '']));
    for (const file of files) {
      loads.get(file)!.push(timeNode([file]));
    }
  }
  const bareNodeMs = median(bare);
  const fastestBare = Math.min(...bare);
  return {
    bareNodeMs,
    initMs: new Map([...loads].map(([file, times]) => [file, Math.max(0, median(times) - bareNodeMs)])),
    fastestMs: new Map([...loads].map(([file, times]) => [file, Math.max(0, Math.min(...times) - fastestBare)])),
  };
}
