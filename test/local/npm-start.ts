/**
 * `npm start` (bin/start.ts) as a child process of a test, with only the
 * environment the test gives it (not the test run's own endpoints).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface StartedStack {
  child: ChildProcess;
  output: () => string;
  exit: Promise<{ code: number | null; stderr: string }>;
}

const running: ChildProcess[] = [];

afterEach(() => {
  for (const child of running.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

export function startStack(env: Record<string, string>): StartedStack {
  const { DYNAMODB_ENDPOINT: _d, SES_ENDPOINT: _s, TABLE_NAME: _t, S3_ENDPOINT: _s3, SQS_ENDPOINT: _sqs, ...inherited } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/start.ts'], { cwd: ROOT, env: { ...inherited, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  running.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exit = new Promise<{ code: number | null; stderr: string }>((resolve) => child.once('exit', (code) => resolve({ code, stderr })));
  return { child, output: () => stdout, exit };
}

/** Everything it printed up to its `ready` line. */
export async function untilReady(started: StartedStack): Promise<string> {
  const deadline = Date.now() + 60_000;
  while (!/^ready$/m.test(started.output())) {
    if (started.child.exitCode !== null) throw new Error(`npm start exited early:\n${started.output()}\n${(await started.exit).stderr}`);
    if (Date.now() > deadline) throw new Error(`no ready line:\n${started.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return started.output();
}

/** SIGTERM, as Ctrl-C or a process manager would; resolves to the exit code. */
export async function stopStack(started: StartedStack): Promise<number | null> {
  started.child.kill('SIGTERM');
  return (await started.exit).code;
}
