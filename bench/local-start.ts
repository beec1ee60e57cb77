/**
 * How long `npm start` takes to print `ready`: bin/start.ts as `npm start`
 * runs it (after the Java check), in memory, on free ports, with an empty data
 * folder, so each round seeds as a first start does. A goal of the local
 * stack (issue 15: under 10 s on an idle 2-core machine), measured here
 * rather than asserted in a timed test.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findFreePort } from '#dev/local/ports.ts';
import { median } from './cold-start.ts';

export interface LocalStart {
  rounds: number;
  medianMs: number;
  fastestMs: number;
}

/** One start until `ready`, then SIGTERM and wait for the exit (its ports and JVM gone before the next round). */
async function timeOneStart(): Promise<number> {
  const dataDir = await mkdtemp(join(tmpdir(), 'postlane-bench-start-'));
  const { DYNAMODB_ENDPOINT: _d, SES_ENDPOINT: _s, S3_ENDPOINT: _s3, SQS_ENDPOINT: _q, TABLE_NAME: _t, ...inherited } = process.env;
  const env = {
    ...inherited,
    LOCAL_IN_MEMORY: '1',
    LOCAL_DATA_DIR: dataDir,
    PORT: String(await findFreePort()),
    DYNAMODB_PORT: String(await findFreePort()),
    SES_PORT: String(await findFreePort()),
  };
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/start.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    return await new Promise<number>((resolve, reject) => {
      let output = '';
      child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        output += chunk;
        if (/^ready$/m.test(output)) resolve(performance.now() - started);
      });
      child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      child.once('exit', (code) => reject(new Error(`npm start exited (${code}) before ready: ${output.trim().split('\n').slice(-3).join(' | ')}`)));
    });
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await rm(dataDir, { recursive: true, force: true });
  }
}

export async function measureLocalStart(rounds: number): Promise<LocalStart> {
  const times: number[] = [];
  for (let round = 0; round < rounds; round++) times.push(await timeOneStart());
  return { rounds, medianMs: median(times), fastestMs: Math.min(...times) };
}
