/**
 * Cold init of a function: the time the Lambda runtime takes to import its
 * bundle (its top level runs: configuration, SDK clients, middleware chain)
 * over the runtime's own start. Both are timed with a stand-in of the
 * runtime (./runtime-stand-in.mjs: an ES module that loads what Lambda's
 * runtime interface client loads before it imports a handler): the bare
 * start is the stand-in alone, the load the stand-in importing the bundle.
 * A bare `node -e ''` charged each function with the ESM loader and the
 * built-ins the runtime had loaded already. On a shared machine the load of
 * other processes changes from one second to the next, so each bundle is
 * timed right after a bare start of its own, the pair gives one ratio, and
 * the median of a function's ratios over the rounds is its figure: a busy
 * spell slows both starts of a pair and cancels out of their ratio.
 */
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

/** The runtime stand-in; given a bundle's path it imports it as the runtime imports a handler. */
export const RUNTIME_STAND_IN = fileURLToPath(new URL('./runtime-stand-in.mjs', import.meta.url));

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

/** One round's pair: a bare start (the runtime stand-in alone), then the stand-in importing the bundle. */
export interface ColdPair {
  bareMs: number;
  loadMs: number;
}

export interface ColdFigures {
  /** Median over the rounds of (load − bare) / bare, each pair's own bare start. */
  ratio: number;
  /** Median over the rounds of load − bare, ms. */
  initMs: number;
  /**
   * The fastest load less the fastest bare start of the whole run: what the
   * bundle costs when nothing else competes for the CPU. Every bundle has as
   * many bare starts beside it as loads, so the fastest bare start is taken
   * from as many samples as any bundle's fastest load (with one bare start per
   * round for all bundles it came from far fewer and could exceed a bundle's
   * fastest load, which showed as 0.0 ms).
   */
  fastestMs: number;
}

/** A function's figures from its pairs; `fastestBareMs` is the fastest bare start of the whole run. */
export function coldFigures(pairs: readonly ColdPair[], fastestBareMs: number): ColdFigures {
  return {
    ratio: median(pairs.map((pair) => (pair.loadMs - pair.bareMs) / pair.bareMs)),
    initMs: median(pairs.map((pair) => pair.loadMs - pair.bareMs)),
    fastestMs: Math.min(...pairs.map((pair) => pair.loadMs)) - fastestBareMs,
  };
}

export interface ColdStart {
  rounds: number;
  /** Median ms of every bare start (the runtime stand-in alone) of the run. */
  bareStartMs: number;
  /** The 1-minute load average before and after: how busy the machine was while it measured. */
  loadAverage: [number, number];
  /** Per bundle file. */
  figures: Map<string, ColdFigures>;
}

/**
 * Each round times, for every bundle in turn, a bare start and then the
 * bundle; the order of the bundles rotates from round to round so that none
 * always follows the same neighbour.
 */
export async function measureColdStarts(files: readonly string[], rounds: number): Promise<ColdStart> {
  const loadBefore = loadavg()[0]!;
  const pairs = new Map<string, ColdPair[]>(files.map((file) => [file, []]));
  for (let round = 0; round < rounds; round++) {
    for (let index = 0; index < files.length; index++) {
      const file = files[(index + round) % files.length]!;
      const bareMs = timeNode([RUNTIME_STAND_IN]);
      pairs.get(file)!.push({ bareMs, loadMs: timeNode([RUNTIME_STAND_IN, file]) });
    }
  }
  const bare = [...pairs.values()].flat().map((pair) => pair.bareMs);
  const fastestBare = Math.min(...bare);
  return {
    rounds,
    bareStartMs: median(bare),
    loadAverage: [loadBefore, loadavg()[0]!],
    figures: new Map([...pairs].map(([file, filePairs]) => [file, coldFigures(filePairs, fastestBare)])),
  };
}
