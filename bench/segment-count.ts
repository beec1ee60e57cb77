/**
 * The segment count (POST /api/audiences/:id/segment-count) of a 100,000-contact
 * audience under `npm start`, run by hand: `node --import tsx
 * bench/segment-count.ts [contacts]`. Starts bin/start.ts in memory on free
 * ports, seeds the audience as bench/scale.ts does (one contact in ten tagged
 * `a`), and reports the median wall time of five counts each: without a
 * segment (the counters), with the tag, and with a field nothing matches.
 * Figures go to docs/broadcasts.md by hand: a measurement, not a budget.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { findFreePort } from '#dev/local/ports.ts';

const contacts = Number(process.argv[2] ?? 100_000);
const say = (message: string) => process.stderr.write(`segment count: ${message}\n`);

const dataDir = await mkdtemp(join(tmpdir(), 'postlane-local-broadcast-'));
const ports = { PORT: await findFreePort(), DYNAMODB_PORT: await findFreePort(), SES_PORT: await findFreePort() };
const { DYNAMODB_ENDPOINT: _d, SES_ENDPOINT: _s, TABLE_NAME: _t, ...inherited } = process.env;
const server = spawn(process.execPath, ['--import', 'tsx', 'bin/start.ts'], {
  env: {
    ...inherited,
    LOCAL_IN_MEMORY: '1',
    LOCAL_DATA_DIR: dataDir,
    ...Object.fromEntries(Object.entries(ports).map(([name, port]) => [name, String(port)])),
  },
  stdio: ['ignore', 'pipe', 'inherit'],
});
try {
  await new Promise<void>((resolve, reject) => {
    let output = '';
    server.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      if (/^ready$/m.test(output)) resolve();
    });
    server.once('exit', (code) => reject(new Error(`npm start exited (${code}) before ready`)));
  });
  // The seeding below writes to the server's DynamoDB Local with the store modules, as bench/scale.ts does.
  Object.assign(process.env, {
    DYNAMODB_ENDPOINT: `http://127.0.0.1:${ports.DYNAMODB_PORT}`,
    SES_ENDPOINT: `http://127.0.0.1:${ports.SES_PORT}`,
    AWS_REGION: 'us-east-1',
    SIGNING_SECRET: 'unused-by-seeding-0123456789abcdef',
  });
  const { createBenchAccount } = await import('./fixtures.ts');
  const { seedContacts } = await import('./scale.ts');
  const { expectCall } = await import('./stack.ts');
  const api = `http://127.0.0.1:${ports.PORT}`;
  const account = await createBenchAccount();
  const key = account.liveKeys[0]!;
  const audienceId = (await expectCall(api, 201, 'POST', '/api/audiences', { key, body: { name: 'Segment count' } })).data.id as string;
  const started = performance.now();
  await seedContacts(account.accountId, audienceId, contacts, new Date(), undefined, (index) => (index % 10 === 0 ? ['a'] : []));
  say(`seeded ${contacts} contacts in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  /** The median of five calls' wall time, ms, and the last answer. */
  const timed = async (segment: unknown) => {
    const times: number[] = [];
    let answer: unknown;
    for (let round = 0; round < 5; round++) {
      const at = performance.now();
      answer = (await expectCall(api, 200, 'POST', `/api/audiences/${audienceId}/segment-count`, { key, body: segment === undefined ? {} : { segment } })).data;
      times.push(performance.now() - at);
    }
    return { medianMs: Math.round(times.sort((a, b) => a - b)[2]!), answer };
  };
  console.log(
    JSON.stringify(
      {
        measuredAt: new Date().toISOString(),
        machine: `${cpus().length} × ${cpus()[0]?.model.trim()}, load average ${loadavg()[0]!.toFixed(1)}`,
        contacts,
        wholeAudience: await timed(undefined),
        oneTagInTen: await timed({ tags: ['a'] }),
        noMatch: await timed({ customFields: { plan: 'none' } }),
      },
      null,
      2,
    ),
  );
} finally {
  const exited = new Promise((resolve) => server.once('exit', resolve));
  server.kill('SIGTERM');
  await exited;
  await rm(dataDir, { recursive: true, force: true });
}
