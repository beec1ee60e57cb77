/**
 * What the by-hand measurements under `npm start` share (bench/local-broadcast.ts,
 * bench/segment-count.ts): bin/start.ts in memory on free ports, this process
 * pointed at its DynamoDB Local so the store modules can seed it as
 * bench/scale.ts does, and an account with an audience made through its API.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findFreePort } from '#dev/local/ports.ts';

export interface LocalAudience {
  server: ChildProcess;
  api: string;
  key: string;
  account: Awaited<ReturnType<typeof import('./fixtures.ts').createBenchAccount>>;
  audienceId: string;
  /** Stops the server and removes its data. */
  stop(): Promise<void>;
}

/** Starts the stack and makes an account and an audience named `name`; the caller seeds it and calls `stop` at the end. */
export async function startLocalAudience(name: string): Promise<LocalAudience> {
  const dataDir = await mkdtemp(join(tmpdir(), 'postlane-local-broadcast-'));
  const ports = { PORT: await findFreePort(), DYNAMODB_PORT: await findFreePort(), SES_PORT: await findFreePort() };
  const { DYNAMODB_ENDPOINT: _d, SES_ENDPOINT: _s, TABLE_NAME: _t, ...inherited } = process.env;
  const server = spawn(process.execPath, ['--import', 'tsx', 'bin/start.ts'], {
    env: {
      ...inherited,
      LOCAL_IN_MEMORY: '1',
      LOCAL_DATA_DIR: dataDir,
      ...Object.fromEntries(Object.entries(ports).map(([port, value]) => [port, String(value)])),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stop = async () => {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    await new Promise<void>((resolve, reject) => {
      let output = '';
      server.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        output += chunk;
        if (/^ready$/m.test(output)) resolve();
      });
      server.once('exit', (code) => reject(new Error(`npm start exited (${code}) before ready`)));
    });
    // The seeding writes to the server's DynamoDB Local with the store modules, as bench/scale.ts does.
    Object.assign(process.env, {
      DYNAMODB_ENDPOINT: `http://127.0.0.1:${ports.DYNAMODB_PORT}`,
      SES_ENDPOINT: `http://127.0.0.1:${ports.SES_PORT}`,
      AWS_REGION: 'us-east-1',
      SIGNING_SECRET: 'unused-by-seeding-0123456789abcdef',
    });
    const { createBenchAccount } = await import('./fixtures.ts');
    const { expectCall } = await import('./stack.ts');
    const api = `http://127.0.0.1:${ports.PORT}`;
    const account = await createBenchAccount();
    const key = account.liveKeys[0]!;
    const audienceId = (await expectCall(api, 201, 'POST', '/api/audiences', { key, body: { name } })).data.id as string;
    return { server, api, key, account, audienceId, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
