/**
 * `npm start`: DynamoDB Local, the SES emulator, the local S3 of attachment
 * uploads, the HTTP API and the dashboard in one foreground process tree, as
 * README.md ("Local stack") describes. Ctrl-C or SIGTERM stops every part and
 * exits 0.
 */
import { createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MAX_RECEIVES } from '#shared/sending/retry-policy.ts';
import { WEBHOOK_MAX_RECEIVES } from '#shared/webhooks/schedule.ts';
import { isPortFree, suggestFreePort } from '#dev/local/ports.ts';
import { BROADCAST_MAX_CONCURRENCY, BROADCAST_MAX_RECEIVES } from '#shared/broadcasts/policy.ts';
import { EXPORT_MAX_RECEIVES } from '#shared/contacts/export-policy.ts';
import { FEEDBACK_MAX_RECEIVES } from '#shared/feedback/policy.ts';
import type { LocalAccount } from '#dev/local/seed.ts';
import { writeLogTo } from '#shared/platform/log.ts';
// The parts' modules (the AWS SDK clients, the SES emulator's Express app) are imported in main(),
// once the configuration and the ports have passed: a bad value stops the start before it loads them.

// Lambda runs Node 22+; the SDK's warning about this machine's Node 20 would only clutter the output.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
// LOCAL_DATA_DIR moves the persistent data elsewhere (the restart test keeps it in a temporary directory).
const DATA_DIR = process.env.LOCAL_DATA_DIR ? resolve(process.env.LOCAL_DATA_DIR) : join(ROOT, '.data');
const KEYS_FILE = join(DATA_DIR, 'local-keys.json');
/** The service's own log (one JSON line per request, and errors), emptied at each start. */
const LOG_FILE = join(DATA_DIR, 'server.log');
const HOST = '127.0.0.1';
const RETRY_QUEUE_NAME = 'postlane-retry';
const WEBHOOK_QUEUE_NAME = 'postlane-webhooks';
const WEBHOOK_SLOW_QUEUE_NAME = 'postlane-webhooks-slow';
const BROADCAST_QUEUE_NAME = 'postlane-broadcasts';
const EXPORT_QUEUE_NAME = 'postlane-exports';
const BROADCAST_SCHEDULE_DLQ_NAME = 'postlane-broadcast-schedules-dlq';
const FEEDBACK_QUEUE_NAME = 'postlane-feedback';

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
      const free = await suggestFreePort(
        part.port,
        parts.map((other) => other.port),
      );
      const example = free === undefined ? '' : `, e.g. ${part.variable}=${free} npm start`;
      throw new StartError(`Port ${part.port} is already in use (${part.name}); set ${part.variable} to a free port${example}`);
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

function line(label: string, address: string, note = ''): string {
  return `${label.padEnd(15)} ${address}${note ? `  ${note}` : ''}`;
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

/** The local account a start before this one seeded and saved, if any. */
function savedAccount(keysFile: string | undefined): LocalAccount | undefined {
  return keysFile && existsSync(keysFile) ? (JSON.parse(readFileSync(keysFile, 'utf8')) as LocalAccount) : undefined;
}

/** The dashboard's line among the parts: who signs in, and where the code arrives, when the local admin is known. */
function dashboardNote(problem: string | undefined, admin: string | undefined, mailbox: string): string {
  if (problem) return `(not built: ${problem})`;
  if (admin) return `(sign in as ${admin}, an admin; the code arrives in the SES emulator, ${mailbox})`;
  return `(sign in with a code the SES emulator shows, ${mailbox})`;
}

function printKeysHint(keysFile: string | undefined, admin: string): void {
  const saved = savedAccount(keysFile);
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

/** `LOCAL_IN_MEMORY`: unset, 0/false or 1/true; anything else is a typo that would silently persist data. */
function inMemoryFlag(): boolean {
  const raw = process.env.LOCAL_IN_MEMORY ?? '';
  if (!['', '0', '1', 'false', 'true'].includes(raw)) throw new StartError(`LOCAL_IN_MEMORY must be 1 or true (in memory), 0, false or unset; got "${raw}"`);
  return raw === '1' || raw === 'true';
}

/**
 * Validates the environment the handlers will read, before anything starts.
 * A fresh instance of shared/platform/config.ts (the query makes it one): the instance
 * the handlers share reads the environment once, on import, and must see the
 * endpoints that are only set below.
 */
async function checkConfig(): Promise<void> {
  try {
    await import(`${new URL('../shared/platform/config.ts', import.meta.url).href}?startup-check`);
  } catch (error) {
    throw new StartError((error as Error).message);
  }
}

async function main(): Promise<void> {
  const inMemory = inMemoryFlag();
  const externalDynamo = process.env.DYNAMODB_ENDPOINT;
  const externalSes = process.env.SES_ENDPOINT;
  const externalS3 = process.env.S3_ENDPOINT;
  const externalSqs = process.env.SQS_ENDPOINT;
  const dynamoPart = port('DYNAMODB_PORT', 8000, 'DynamoDB Local');
  const sesPart = port('SES_PORT', 8005, 'SES emulator');
  const apiPart = port('PORT', 3000, 'HTTP API');
  // Not one of the fixed ports README.md documents: any free one unless S3_PORT names one.
  const s3Part = process.env.S3_PORT ? port('S3_PORT', 0, 'local S3') : undefined;
  // Likewise the SQS stand-in of the retry queue (SQS_PORT).
  const sqsPart = process.env.SQS_PORT ? port('SQS_PORT', 0, 'local SQS') : undefined;
  await checkConfig();
  await checkPorts([
    ...(externalDynamo ? [] : [dynamoPart]),
    ...(externalSes ? [] : [sesPart]),
    ...(externalS3 || !s3Part ? [] : [s3Part]),
    ...(externalSqs || !sqsPart ? [] : [sqsPart]),
    apiPart,
  ]);

  const [
    { ensureTable, isTableEmpty, startDynamoDbLocal },
    { startSesEmulator },
    { startLocalS3 },
    { createQueue, createRetryQueues, startLocalSqs },
    { startLocalScheduler },
  ] = await Promise.all([
    import('#dev/local/dynamodb.ts'),
    import('#dev/local/ses.ts'),
    import('#dev/local/s3.ts'),
    import('#dev/local/sqs.ts'),
    import('#dev/local/scheduler.ts'),
  ]);
  // The JVM of DynamoDB Local takes longest to answer: everything else starts and loads while it boots.
  const dbPath = inMemory ? undefined : join(DATA_DIR, 'dynamodb');
  const dynamoStarting = externalDynamo ? undefined : startDynamoDbLocal({ port: dynamoPart.port, lean: true, ...(dbPath ? { dbPath } : {}) });
  // Awaited below; a part failing first must not leave it an unhandled rejection (exit kills its JVM).
  dynamoStarting?.catch(() => undefined);
  // Printed together once every part is up, so they read in this order however the starts interleave.
  const lines: string[] = [];
  const dynamoEndpoint = externalDynamo ?? `http://${HOST}:${dynamoPart.port}`;

  // The dashboard's static files (dist/dashboard/), built while the rest starts: about a second of esbuild.
  const dashboardBuilt = import('../dashboard/build.ts')
    .then(({ buildDashboard }) => buildDashboard())
    .then(
      () => undefined,
      (error: Error) => error.message.split('\n')[0]!,
    );

  // The SES emulator, the local S3 and the local SQS wait on nothing of each other: started together.
  const s3DataDir = inMemory ? undefined : join(DATA_DIR, 's3');
  const started = <T extends { stop: () => Promise<void> }>(part: T): T => {
    stoppers.push(part.stop);
    return part;
  };
  const [ses, s3, sqs] = await Promise.all([
    externalSes ? undefined : startSesEmulator({ port: sesPart.port, host: HOST }).then(started),
    externalS3 ? undefined : startLocalS3({ port: s3Part?.port ?? 0, host: HOST, ...(s3DataDir ? { dataDir: s3DataDir } : {}) }).then(started),
    externalSqs ? undefined : startLocalSqs({ port: sqsPart?.port ?? 0, host: HOST }).then(started),
  ]);
  const sesEndpoint = externalSes ?? ses!.endpoint;
  lines.push(
    externalSes
      ? line('SES', sesEndpoint, '(SES_ENDPOINT; not started here)')
      : line('SES emulator', sesEndpoint, `(sent emails: ${sesEndpoint}/ , as JSON: ${sesEndpoint}/store)`),
  );
  const s3Endpoint = externalS3 ?? s3!.endpoint;
  lines.push(
    externalS3
      ? line('S3', s3Endpoint, '(S3_ENDPOINT; not started here)')
      : line('local S3', s3Endpoint, s3DataDir ? `(attachment uploads in ${relative(ROOT, s3DataDir)}/)` : '(attachment uploads in memory: LOCAL_IN_MEMORY)'),
  );
  const sqsEndpoint = externalSqs ?? sqs!.endpoint;
  const [retryQueues, webhookQueues, slowWebhookQueues, feedbackQueues, broadcastQueues, scheduleDeadLetters, scheduler, exportQueues] = await Promise.all([
    createRetryQueues(sqsEndpoint, RETRY_QUEUE_NAME, MAX_RECEIVES),
    createRetryQueues(sqsEndpoint, WEBHOOK_QUEUE_NAME, WEBHOOK_MAX_RECEIVES),
    createRetryQueues(sqsEndpoint, WEBHOOK_SLOW_QUEUE_NAME, WEBHOOK_MAX_RECEIVES),
    createRetryQueues(sqsEndpoint, FEEDBACK_QUEUE_NAME, FEEDBACK_MAX_RECEIVES),
    createRetryQueues(sqsEndpoint, BROADCAST_QUEUE_NAME, BROADCAST_MAX_RECEIVES),
    // Where the scheduler writes a start step it could not put on the broadcast queue, as the stack's schedules say.
    createQueue(sqsEndpoint, BROADCAST_SCHEDULE_DLQ_NAME),
    // Fires scheduled broadcasts at their time, putting their start step on the broadcast queue as EventBridge Scheduler does.
    startLocalScheduler({ port: 0, sqsEndpoint, tickMs: 1_000, host: HOST }).then(started),
    createRetryQueues(sqsEndpoint, EXPORT_QUEUE_NAME, EXPORT_MAX_RECEIVES),
  ]);
  lines.push(
    line(
      'retry queue',
      retryQueues.queueUrl,
      externalSqs ? '(SQS_ENDPOINT; not started here)' : `(throttled sends, worker polling; dead letters: ${retryQueues.deadLetterQueueUrl})`,
    ),
  );
  lines.push(
    line(
      'webhook queue',
      webhookQueues.queueUrl,
      externalSqs ? '(SQS_ENDPOINT; not started here)' : `(deliveries, worker polling; dead letters: ${webhookQueues.deadLetterQueueUrl})`,
    ),
  );
  lines.push(
    line(
      'slow webhooks',
      slowWebhookQueues.queueUrl,
      externalSqs ? '(SQS_ENDPOINT; not started here)' : `(deliveries of endpoints marked slow; dead letters: ${slowWebhookQueues.deadLetterQueueUrl})`,
    ),
  );
  lines.push(
    line(
      'broadcasts',
      broadcastQueues.queueUrl,
      `(up to ${BROADCAST_MAX_CONCURRENCY} workers at once; scheduler ${scheduler.endpoint}; dead letters: ${broadcastQueues.deadLetterQueueUrl}, of schedules: ${scheduleDeadLetters})`,
    ),
  );

  lines.push(line('export queue', exportQueues.queueUrl, `(large audience exports, worker polling; dead letters: ${exportQueues.deadLetterQueueUrl})`));

  // An access line per request would interleave with these lines: the service logs to a file of its own.
  mkdirSync(DATA_DIR, { recursive: true });
  // Request lines carry account ids: readable by the owner only, as the local keys file is.
  writeLogTo(createWriteStream(LOG_FILE, { mode: 0o600 }));
  lines.push(line('server log', relative(ROOT, LOG_FILE), '(a JSON line per request, and errors; tail -f it)'));

  // shared/platform/config.ts reads the environment once, on import: everything that reaches it is imported below, after this.
  process.env.DYNAMODB_ENDPOINT = dynamoEndpoint;
  process.env.SES_ENDPOINT = sesEndpoint;
  process.env.S3_ENDPOINT = s3Endpoint;
  process.env.SQS_ENDPOINT = sqsEndpoint;
  process.env.RETRY_QUEUE_URL = retryQueues.queueUrl;
  process.env.WEBHOOK_QUEUE_URL = webhookQueues.queueUrl;
  process.env.WEBHOOK_SLOW_QUEUE_URL = slowWebhookQueues.queueUrl;
  process.env.BROADCAST_QUEUE_URL = broadcastQueues.queueUrl;
  process.env.EXPORT_QUEUE_URL = exportQueues.queueUrl;
  process.env.BROADCAST_QUEUE_ARN = `arn:aws:sqs:us-east-1:000000000000:${BROADCAST_QUEUE_NAME}`;
  process.env.BROADCAST_SCHEDULER_ROLE_ARN = 'arn:aws:iam::000000000000:role/local-scheduler';
  process.env.BROADCAST_SCHEDULE_DLQ_ARN = `arn:aws:sqs:us-east-1:000000000000:${BROADCAST_SCHEDULE_DLQ_NAME}`;
  process.env.SCHEDULER_ENDPOINT = scheduler.endpoint;
  // Mailed and rendered links start here, whatever Host a request carries (docs/operations.md, PUBLIC_BASE_URL).
  process.env.PUBLIC_BASE_URL ??= `http://${HOST}:${apiPart.port}`;
  // The sender of sign-in codes and invitations: the seeded account's domain, which the emulator takes like any.
  process.env.SERVICE_MAIL_FROM ??= 'Postlane <no-reply@example.com>';
  const [
    { config, readConfig },
    { startHttpServer },
    { startRetryWorker },
    { startWebhookWorker },
    { startEventFanOut },
    { startMailboxSimulator, SIMULATOR_DOMAIN },
    { startBroadcastWorker },
    { startFeedbackWorker },
    { startExportWorker },
  ] = await Promise.all([
    import('#shared/platform/config.ts'),
    import('#dev/local/http-server.ts'),
    import('#dev/local/retry-worker.ts'),
    import('#dev/local/webhook-worker.ts'),
    import('#dev/local/event-fan-out.ts'),
    import('#dev/local/mailbox-simulator.ts'),
    import('#dev/local/broadcast-worker.ts'),
    import('#dev/local/feedback-worker.ts'),
    import('#dev/local/export-worker.ts'),
  ]);

  if (dynamoStarting) {
    const dynamo = await dynamoStarting;
    stoppers.push(dynamo.stop);
    void dynamo.exited.then(() => {
      // Ctrl-C reaches java too (same process group); let our own SIGINT handler run first.
      setTimeout(() => {
        if (stopping) return;
        console.error('DynamoDB Local stopped unexpectedly; stopping everything');
        void shutdown(1);
      }, 500);
    });
    lines.unshift(line('DynamoDB Local', dynamoEndpoint, dbPath ? `(data in ${relative(ROOT, dbPath)}/)` : '(in memory: LOCAL_IN_MEMORY)'));
  } else {
    lines.unshift(line('DynamoDB', dynamoEndpoint, '(DYNAMODB_ENDPOINT; not started here)'));
  }
  await ensureTable(dynamoEndpoint, config.TABLE_NAME);

  const api = await startHttpServer({ port: apiPart.port, host: HOST });
  stoppers.push(api.close);
  stoppers.push((await startRetryWorker()).stop);
  stoppers.push((await startWebhookWorker()).stop);
  // The table's stream, as the stack's event source reads it: new events reach the webhook queue off the request path.
  stoppers.push((await startEventFanOut(dynamoEndpoint)).stop);
  lines.push(line('event fan-out', `${dynamoEndpoint} (table stream)`, '(new events to the webhook queue, as the stream event source does)'));
  stoppers.push((await startBroadcastWorker()).stop);
  stoppers.push((await startExportWorker()).stop);
  // The simulator stops first (stoppers run in reverse), so no event is published to a worker already stopped.
  stoppers.push((await startFeedbackWorker(feedbackQueues.queueUrl)).stop);
  stoppers.push(startMailboxSimulator({ queues: feedbackQueues }).stop);
  lines.push(line('SES feedback', `success@, bounce@, complaint@${SIMULATOR_DOMAIN}`, '(local mailbox simulator)'));
  lines.push(line('feedback queue', feedbackQueues.queueUrl, `(SES events, worker polling; dead letters: ${feedbackQueues.deadLetterQueueUrl})`));
  lines.push(line('HTTP API', api.url));
  lines.push(line('hosted forms', `${api.url}/f/<slug>`));
  // The file belongs with .data/dynamodb/: keys of an in-memory or outside table must not replace its keys.
  const keysFile = externalDynamo || inMemory ? undefined : KEYS_FILE;
  // Seeded before the parts are printed, so the dashboard's line names the admin it made: its address is printed once.
  const seeded = (await isTableEmpty(dynamoEndpoint, config.TABLE_NAME)) ? await (await import('#dev/local/seed.ts')).seedLocalAccount() : undefined;
  const dashboardProblem = await dashboardBuilt;
  lines.push(line('dashboard', `${api.url}/app/`, dashboardNote(dashboardProblem, (seeded ?? savedAccount(keysFile))?.admin, `${sesEndpoint}/`)));
  console.log(lines.join('\n'));

  const admin = adminCommand(dynamoEndpoint, config.TABLE_NAME, readConfig({}).TABLE_NAME);
  if (seeded) {
    if (keysFile) writeFileSync(keysFile, `${JSON.stringify(seeded, null, 2)}\n`, { mode: 0o600 });
    printKeys(seeded, keysFile, admin);
  } else {
    printKeysHint(keysFile, admin);
  }

  // DynamoDB has answered already (the table and seed calls above).
  const silent = (await Promise.all([sesEndpoint, s3Endpoint, api.url].map(async (url) => ((await answers(url)) ? [] : [url])))).flat();
  if (silent.length > 0) throw new StartError(`${silent[0]} does not answer`);
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
