/**
 * How long `npm run synth` takes: `cdk synth --quiet` of both regional stacks
 * with every function bundled (lib/bundling.ts builds them all once, in one
 * child process, and both regions stage the same assets), into a folder of
 * its own so cdk.out is left alone. A goal of issue 28 (under 30 s on an idle
 * 2-core machine), measured here rather than asserted in a timed test; the
 * load average says how idle the machine was.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SynthTiming {
  ms: number;
  /** Assets with a function's `index.mjs`: one per function, shared by the regions. */
  functionAssets: number;
  /** The 1-minute load average before and after. */
  loadAverage: [number, number];
}

export async function measureSynth(): Promise<SynthTiming> {
  const output = await mkdtemp(join(tmpdir(), 'postlane-bench-synth-'));
  try {
    const loadBefore = loadavg()[0]!;
    const started = performance.now();
    await new Promise<void>((resolve, reject) => {
      const child = spawn(join('node_modules', '.bin', 'cdk'), ['synth', '--quiet', '--output', output], { stdio: ['ignore', 'ignore', 'pipe'] });
      let errors = '';
      child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (errors += chunk));
      child.once('error', reject);
      child.once('exit', (code) =>
        code === 0 ? resolve() : reject(new Error(`cdk synth exited ${code}: ${errors.trim().split('\n').slice(-3).join(' | ')}`)),
      );
    });
    const ms = performance.now() - started;
    const assets = (await readdir(output)).filter((name) => name.startsWith('asset.'));
    const withEntry = await Promise.all(
      assets.map((name) =>
        stat(join(output, name, 'index.mjs')).then(
          () => true,
          () => false,
        ),
      ),
    );
    return { ms, functionAssets: withEntry.filter(Boolean).length, loadAverage: [loadBefore, loadavg()[0]!] };
  } finally {
    await rm(output, { recursive: true, force: true });
  }
}
