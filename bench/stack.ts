/**
 * The local stack the benchmark runs against, all its own: DynamoDB Local in
 * memory and the SES emulator on free ports, a fresh table, the API in this
 * process (for metered requests) and in a child process (for load, so the
 * load generator does not share the server's event loop). `stop` leaves
 * nothing running.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { ensureTable, startDynamoDbLocal } from '#dev/local/dynamodb.ts';
import { findFreePort } from '#dev/local/ports.ts';
import { startLocalS3 } from '#dev/local/s3.ts';
import { startSesEmulator } from '#dev/local/ses.ts';
import { createRetryQueues, startLocalSqs } from '#dev/local/sqs.ts';
import { WEBHOOK_MAX_RECEIVES } from '#shared/webhooks/schedule.ts';
import { BROADCAST_MAX_RECEIVES } from '#shared/broadcasts/policy.ts';
import { MAX_RECEIVES } from '#shared/sending/retry-policy.ts';
import { EXPORT_MAX_RECEIVES } from '#shared/contacts/export-policy.ts';
import { DEFAULT_SES_RATE } from './broadcast.ts';
import type { LocalService } from '#dev/local/service.ts';

export interface BenchStack {
  env: Record<string, string>;
  sesEndpoint: string;
  /** The port the API in this process listens on: PUBLIC_BASE_URL's, so the dashboard it serves passes the API's origin check. */
  apiPort: number;
  /** Starts the API in a child process; resolves to its address. */
  startServerProcess(): Promise<string>;
  stop(): Promise<void>;
}

/** The free port can be taken between the check and java's bind; another try settles it. */
async function startDynamoDb(): Promise<LocalService> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startDynamoDbLocal({ port: await findFreePort() });
    } catch (error) {
      if (attempt === 3) throw error;
    }
  }
}

/**
 * Starts the services and points this process's environment at them; call it
 * before anything imports shared/platform/config.ts, which reads the environment once.
 */
export async function startBenchStack(): Promise<BenchStack> {
  const [dynamodb, ses, sqs, s3] = await Promise.all([startDynamoDb(), startSesEmulator({ port: 0 }), startLocalSqs({ port: 0 }), startLocalS3({ port: 0 })]);
  const apiPort = await findFreePort();
  const children: ChildProcess[] = [];
  const stop = async () => {
    for (const child of children) child.kill('SIGTERM');
    await Promise.all([dynamodb.stop(), ses.stop(), sqs.stop(), s3.stop()]);
  };
  // The webhook bench's queue (bench/webhooks.ts), made as `npm start` makes it.
  const webhooks = await createRetryQueues(sqs.endpoint, 'postlane-webhooks', WEBHOOK_MAX_RECEIVES);
  const slowWebhooks = await createRetryQueues(sqs.endpoint, 'postlane-webhooks-slow', WEBHOOK_MAX_RECEIVES);
  // The retry queue, whose worker also mails the dashboard's sign-in codes (bench/dashboard.ts).
  const retries = await createRetryQueues(sqs.endpoint, 'postlane-retries', MAX_RECEIVES);
  // The broadcast bench's queue (bench/broadcast.ts).
  const broadcasts = await createRetryQueues(sqs.endpoint, 'postlane-broadcasts', BROADCAST_MAX_RECEIVES);
  // The export bench's queue (bench/export.ts): the API server queues the job, the bench's process runs the worker.
  const exports = await createRetryQueues(sqs.endpoint, 'postlane-exports', EXPORT_MAX_RECEIVES);
  const env = {
    DYNAMODB_ENDPOINT: dynamodb.endpoint,
    SES_ENDPOINT: ses.endpoint,
    TABLE_NAME: `postlane-bench-${Date.now().toString(36)}`,
    AWS_REGION: 'us-east-1',
    SQS_ENDPOINT: sqs.endpoint,
    // The export bench's CSV (bench/export.ts) goes to the attachments bucket.
    S3_ENDPOINT: s3.endpoint,
    WEBHOOK_QUEUE_URL: webhooks.queueUrl,
    WEBHOOK_SLOW_QUEUE_URL: slowWebhooks.queueUrl,
    BROADCAST_QUEUE_URL: broadcasts.queueUrl,
    EXPORT_QUEUE_URL: exports.queueUrl,
    RETRY_QUEUE_URL: retries.queueUrl,
    SERVICE_MAIL_FROM: 'Postlane <no-reply@example.com>',
    // The broadcast bench's SES stand-in accepts this many a second; the pacing reads the same name.
    SES_MAX_SEND_RATE: process.env.SES_MAX_SEND_RATE ?? String(DEFAULT_SES_RATE),
    // No interactive sends compete in the bench: the broadcast may use the whole rate, the figure the budget holds it to.
    SES_RATE_HEADROOM: '0',
    SIGNING_SECRET: 'bench-signing-secret-0123456789abcdef',
    // Mailed links are built from configuration, never from a request (the benchmark follows none); a signed-in
    // request that changes something must come from this origin, as the dashboard's do under `npm start`.
    PUBLIC_BASE_URL: `http://127.0.0.1:${apiPort}`,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  try {
    await ensureTable(dynamodb.endpoint, env.TABLE_NAME);
  } catch (error) {
    await stop();
    throw error;
  }
  Object.assign(process.env, env);

  const startServerProcess = async () => {
    // stdout ignored: the server writes an access line per request, thousands under load.
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/serve.ts'], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    children.push(child);
    const [message] = (await Promise.race([
      once(child, 'message'),
      once(child, 'exit').then(() => {
        throw new Error('bench/serve.ts exited before listening');
      }),
    ])) as [{ url: string }];
    return message.url;
  };
  return { env, sesEndpoint: ses.endpoint, apiPort, startServerProcess, stop };
}

export interface ApiReply {
  status: number;
  body: any;
}

/** One request to the API at `baseUrl`, JSON in and out. */
export async function call(baseUrl: string, method: string, path: string, options: { key?: string; body?: unknown } = {}): Promise<ApiReply> {
  const headers: Record<string, string> = {};
  if (options.key) headers['x-api-key'] = options.key;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${baseUrl}${path}`, { method, headers, ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}) });
  const text = await response.text();
  const json = /json/.test(response.headers.get('content-type') ?? '') && text !== '';
  return { status: response.status, body: json ? JSON.parse(text) : text };
}

/** `call` that fails the benchmark unless the answer has the expected status. */
export async function expectCall(baseUrl: string, status: number, method: string, path: string, options: { key?: string; body?: unknown } = {}): Promise<any> {
  const reply = await call(baseUrl, method, path, options);
  if (reply.status !== status) throw new Error(`${method} ${path}: expected ${status}, got ${reply.status} ${JSON.stringify(reply.body).slice(0, 300)}`);
  return reply.body;
}
