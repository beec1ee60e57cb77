/**
 * `npm start`: DynamoDB Local, the SES emulator, the local S3 of attachment
 * uploads and the HTTP API in one foreground process tree, as
 * docs/local-contract.md describes. Ctrl-C or SIGTERM stops every part and
 * exits 0.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MAX_RECEIVES } from '#shared/email/retry-policy.ts';
import { ensureTable, isTableEmpty, startDynamoDbLocal } from '#shared/local/dynamodb.ts';
import { isPortFree } from '#shared/local/ports.ts';
import { startLocalS3 } from '#shared/local/s3.ts';
import { startSesEmulator } from '#shared/local/ses.ts';
import { createQueue, createRetryQueues, startLocalSqs } from '#shared/local/sqs.ts';
import type { LocalAccount } from '#shared/local/seed.ts';

// Lambda runs Node 22+; the SDK's warning about this machine's Node 20 would only clutter the output.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
// LOCAL_DATA_DIR moves the persistent data elsewhere (the restart test keeps it in a temporary directory).
const DATA_DIR = process.env.LOCAL_DATA_DIR ? resolve(process.env.LOCAL_DATA_DIR) : join(ROOT, '.data');
const KEYS_FILE = join(DATA_DIR, 'local-keys.json');
const HOST = '127.0.0.1';
const RETRY_QUEUE_NAME = 'postlane-retry';
const FEEDBACK_DEAD_LETTERS_NAME = 'postlane-feedback-dlq';

class StartError extends Error {}

interface Part {
  name: string;
  variable: string;
  port: number;
}

function port(variable: string, fallback: number, name: string): Part {
  const raw = process.env[variable];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > 65_535) throw new StartError(`${variable} must be a port number from 1 to 65535; got "${raw}"`);
  return { name, variable, port: value };
}

/** Every port is checked before anything starts, so a clash costs nothing to undo. */
async function checkPorts(parts: Part[]): Promise<void> {
  for (const [index, part] of parts.entries()) {
    const clash = parts.slice(0, index).find((other) => other.port === part.port);
    if (clash) throw new StartError(`${clash.variable} and ${part.variable} are both ${part.port}; set ${part.variable} to another port`);
    if (!(await isPortFree(part.port))) {
      throw new StartError(`Port ${part.port} is already in use (${part.name}); set ${part.variable} to a free port, e.g. ${part.variable}=${part.port + 1} npm start`);
    }
  }
}

const stoppers: (() => Promise<void>)[] = [];
let stopping: Promise<never> | undefined;

/** Stops the parts in reverse order of starting, once however often it is asked, then exits. */
function shutdown(code: number): Promise<never> {
  stopping ??= (async () => {
    for (const stop of stoppers.reverse()) await stop().catch(() => undefined);
    process.exit(code);
  })();
  return stopping;
}

function line(label: string, address: string, note = ''): void {
  console.log(`${label.padEnd(15)} ${address}${note ? `  ${note}` : ''}`);
}

/** The admin command line for this stack: it needs the endpoint and table when they are not its defaults. */
function adminCommand(endpoint: string, tableName: string, defaultTable: string): string {
  const env = [
    ...(endpoint === 'http://127.0.0.1:8000' ? [] : [`DYNAMODB_ENDPOINT=${endpoint}`]),
    ...(tableName === defaultTable ? [] : [`TABLE_NAME=${tableName}`]),
  ];
  return [...env, 'npm run --silent admin --'].join(' ');
}

function printKeys(account: LocalAccount, keysFile: string | undefined, admin: string): void {
  console.log(`\nLocal account ${account.accountId} (plan ${account.plan}), domain ${account.domain} verified`);
  console.log(`  live key  ${account.live.key}`);
  console.log(`  test key  ${account.test.key}`);
  if (keysFile) console.log(`  saved in ${relative(ROOT, keysFile)}; shown only now and there`);
  console.log(`  more keys: ${admin} key create --account ${account.accountId}\n`);
}

function printKeysHint(keysFile: string | undefined, admin: string): void {
  const saved = keysFile && existsSync(keysFile) ? (JSON.parse(readFileSync(keysFile, 'utf8')) as LocalAccount) : undefined;
  if (keysFile && saved) {
    console.log(`\nLocal keys: ${relative(ROOT, keysFile)} (account ${saved.accountId})`);
    console.log(`  more keys: ${admin} key create --account ${saved.accountId}\n`);
  } else {
    console.log(`\nThe table already has data; make an account and a key with:`);
    console.log(`  ${admin} account create --plan pro`);
    console.log(`  ${admin} key create --account <accountId>\n`);
  }
}

async function answers(url: string): Promise<boolean> {
  try {
    await fetch(url, { signal: AbortSignal.timeout(5_000) });
    return true;
  } catch {
    return false;
  }
}

async function main(): Promise<void> {
  const inMemory = process.env.LOCAL_IN_MEMORY === '1' || process.env.LOCAL_IN_MEMORY === 'true';
  const externalDynamo = process.env.DYNAMODB_ENDPOINT;
  const externalSes = process.env.SES_ENDPOINT;
  const externalS3 = process.env.S3_ENDPOINT;
  const externalSqs = process.env.SQS_ENDPOINT;
  const dynamoPart = port('DYNAMODB_PORT', 8000, 'DynamoDB Local');
  const sesPart = port('SES_PORT', 8005, 'SES emulator');
  const apiPart = port('PORT', 3000, 'HTTP API');
  // Not part of the local contract's fixed ports: any free one unless S3_PORT names one.
  const s3Part = process.env.S3_PORT ? port('S3_PORT', 0, 'local S3') : undefined;
  // Likewise the SQS stand-in of the retry queue (SQS_PORT).
  const sqsPart = process.env.SQS_PORT ? port('SQS_PORT', 0, 'local SQS') : undefined;
  await checkPorts([...(externalDynamo ? [] : [dynamoPart]), ...(externalSes ? [] : [sesPart]), ...(externalS3 || !s3Part ? [] : [s3Part]), ...(externalSqs || !sqsPart ? [] : [sqsPart]), apiPart]);

  let dynamoEndpoint = externalDynamo;
  if (dynamoEndpoint) {
    line('DynamoDB', dynamoEndpoint, '(DYNAMODB_ENDPOINT; not started here)');
  } else {
    const dbPath = inMemory ? undefined : join(DATA_DIR, 'dynamodb');
    const dynamo = await startDynamoDbLocal({ port: dynamoPart.port, ...(dbPath ? { dbPath } : {}) });
    stoppers.push(dynamo.stop);
    void dynamo.exited.then(() => {
      // Ctrl-C reaches java too (same process group); let our own SIGINT handler run first.
      setTimeout(() => {
        if (stopping) return;
        console.error('DynamoDB Local stopped unexpectedly; stopping everything');
        void shutdown(1);
      }, 500);
    });
    dynamoEndpoint = dynamo.endpoint;
    line('DynamoDB Local', dynamoEndpoint, dbPath ? `(data in ${relative(ROOT, dbPath)}/)` : '(in memory: LOCAL_IN_MEMORY)');
  }

  let sesEndpoint = externalSes;
  if (sesEndpoint) {
    line('SES', sesEndpoint, '(SES_ENDPOINT; not started here)');
  } else {
    const ses = await startSesEmulator({ port: sesPart.port, host: HOST });
    stoppers.push(ses.stop);
    sesEndpoint = ses.endpoint;
    line('SES emulator', sesEndpoint, `(sent emails: ${sesEndpoint}/ , as JSON: ${sesEndpoint}/store)`);
  }

  let s3Endpoint = externalS3;
  if (s3Endpoint) {
    line('S3', s3Endpoint, '(S3_ENDPOINT; not started here)');
  } else {
    const dataDir = inMemory ? undefined : join(DATA_DIR, 's3');
    const s3 = await startLocalS3({ port: s3Part?.port ?? 0, host: HOST, ...(dataDir ? { dataDir } : {}) });
    stoppers.push(s3.stop);
    s3Endpoint = s3.endpoint;
    line('local S3', s3Endpoint, dataDir ? `(attachment uploads in ${relative(ROOT, dataDir)}/)` : '(attachment uploads in memory: LOCAL_IN_MEMORY)');
  }

  let sqsEndpoint = externalSqs;
  if (!sqsEndpoint) {
    const sqs = await startLocalSqs({ port: sqsPart?.port ?? 0, host: HOST });
    stoppers.push(sqs.stop);
    sqsEndpoint = sqs.endpoint;
  }
  const retryQueues = await createRetryQueues(sqsEndpoint, RETRY_QUEUE_NAME, MAX_RECEIVES);
  line('retry queue', retryQueues.queueUrl, externalSqs ? '(SQS_ENDPOINT; not started here)' : `(throttled sends, worker polling; dead letters: ${retryQueues.deadLetterQueueUrl})`);
  const feedbackDeadLetters = await createQueue(sqsEndpoint, FEEDBACK_DEAD_LETTERS_NAME);

  // shared/config.ts reads the environment once, on import: everything that reaches it is imported below, after this.
  process.env.DYNAMODB_ENDPOINT = dynamoEndpoint;
  process.env.SES_ENDPOINT = sesEndpoint;
  process.env.S3_ENDPOINT = s3Endpoint;
  process.env.SQS_ENDPOINT = sqsEndpoint;
  process.env.RETRY_QUEUE_URL = retryQueues.queueUrl;
  // Mailed and rendered links start here, whatever Host a request carries (local contract).
  process.env.PUBLIC_BASE_URL ??= `http://${HOST}:${apiPart.port}`;
  const { config, readConfig } = await import('#shared/config.ts');
  await ensureTable(dynamoEndpoint, config.TABLE_NAME);

  const { startHttpServer } = await import('#shared/local/http-server.ts');
  const api = await startHttpServer({ port: apiPart.port, host: HOST });
  stoppers.push(api.close);
  const { startRetryWorker } = await import('#shared/local/retry-worker.ts');
  stoppers.push((await startRetryWorker()).stop);
  const { startMailboxSimulator, SIMULATOR_DOMAIN } = await import('#shared/local/mailbox-simulator.ts');
  stoppers.push(startMailboxSimulator({ deadLetterQueueUrl: feedbackDeadLetters }).stop);
  line('SES feedback', `success@, bounce@, complaint@${SIMULATOR_DOMAIN}`, `(local mailbox simulator; dead letters: ${feedbackDeadLetters})`);
  line('HTTP API', api.url);
  line('hosted forms', `${api.url}/f/<slug>`);

  const admin = adminCommand(dynamoEndpoint, config.TABLE_NAME, readConfig({}).TABLE_NAME);
  // The file belongs with .data/dynamodb/: keys of an in-memory or outside table must not replace its keys.
  const keysFile = externalDynamo || inMemory ? undefined : KEYS_FILE;
  if (await isTableEmpty(dynamoEndpoint, config.TABLE_NAME)) {
    const { seedLocalAccount } = await import('#shared/local/seed.ts');
    const account = await seedLocalAccount();
    if (keysFile) {
      mkdirSync(DATA_DIR, { recursive: true });
      writeFileSync(keysFile, `${JSON.stringify(account, null, 2)}\n`, { mode: 0o600 });
    }
    printKeys(account, keysFile, admin);
  } else {
    printKeysHint(keysFile, admin);
  }

  // DynamoDB has answered already (the table and seed calls above).
  for (const url of [sesEndpoint, s3Endpoint, api.url]) {
    if (!(await answers(url))) throw new StartError(`${url} does not answer`);
  }
  console.log('ready');
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    // A second Ctrl-C while stopping means "now".
    if (stopping) process.exit(130);
    void shutdown(0);
  });
}

// `npm start` runs this under `sh -c`; npm's SIGTERM stops the shell but not us, so a new parent means "stop".
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) void shutdown(0);
}, 1_000).unref();

try {
  await main();
} catch (error) {
  console.error(error instanceof StartError ? error.message : `npm start failed: ${(error as Error).message}`);
  await shutdown(1);
}
