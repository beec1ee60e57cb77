import type { DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import * as v from 'valibot';

const optionalUrl = v.optional(v.pipe(v.string(), v.url()));

const ConfigSchema = v.object({
  TABLE_NAME: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z0-9_.-]{3,255}$/)), 'postlane'),
  AWS_REGION: v.optional(v.pipe(v.string(), v.minLength(1)), 'us-east-1'),
  /** Every region of the deployment, the first being the default home of new accounts: `us-east-1,eu-west-1`; unset, AWS_REGION alone. */
  DEPLOYMENT_REGIONS: v.optional(v.pipe(v.string(), v.regex(/^\s*[a-z0-9-]+(\s*,\s*[a-z0-9-]+)*\s*$/, 'must be a comma-separated list of regions'))),
  /**
   * `home` (global table): an account's writes and guarding reads go to its home region's replica.
   * `independent`: one unreplicated table per region, each account's data in its home region only.
   * `local`: every call to the replica of the region the request arrived in; unsafe across
   * regions (test/regions shows why), kept only to demonstrate the danger.
   */
  REGION_MODE: v.optional(v.picklist(['home', 'independent', 'local']), 'home'),
  /** Locally, the table standing for each other region's replica (one DynamoDB Local holds both): `eu-west-1=postlane-eu`. */
  DYNAMODB_REPLICA_TABLES: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\s*[a-z0-9-]+=[A-Za-z0-9_.-]{3,255}(\s*,\s*[a-z0-9-]+=[A-Za-z0-9_.-]{3,255})*\s*$/, 'must be a comma-separated list of region=table'),
    ),
  ),
  DYNAMODB_ENDPOINT: optionalUrl,
  SES_ENDPOINT: optionalUrl,
  /** A local S3 endpoint (path-style): the stand-in of `npm start` and the tests. */
  S3_ENDPOINT: optionalUrl,
  /** Bucket of uploaded attachments; the stack names its own, locally any name does. */
  ATTACHMENTS_BUCKET: v.optional(v.pipe(v.string(), v.regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be an S3 bucket name')), 'postlane-attachments'),
  /** The retry queue for throttled sends (an SQS queue URL); unset, a throttled message fails as SES_THROTTLED. */
  RETRY_QUEUE_URL: optionalUrl,
  /** A local SQS endpoint: the stand-in of `npm start` and the tests (dev/local/sqs.ts). */
  SQS_ENDPOINT: optionalUrl,
  /** The webhook delivery queue (an SQS queue URL): events fan out onto it, the worker (functions/webhooks/deliver.ts) takes from it. */
  WEBHOOK_QUEUE_URL: optionalUrl,
  /** The slow lane's queue (shared/webhooks/queue.ts): deliveries of endpoints marked slow; required with WEBHOOK_QUEUE_URL. */
  WEBHOOK_SLOW_QUEUE_URL: optionalUrl,
  /** The EventBridge bus every event is also put on (`postlane:eventBus`; `default` for the account's default bus); unset, none. */
  EVENT_BUS_NAME: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z0-9._\-/]{1,256}$/, 'must be an EventBridge bus name'))),
  /** The broadcast queue (an SQS queue URL): planning steps and batches of a broadcast, taken by functions/broadcasts/work.ts. */
  BROADCAST_QUEUE_URL: optionalUrl,
  /** The broadcast queue's ARN and the role EventBridge Scheduler assumes to put a scheduled broadcast's first step on it (deployed). */
  BROADCAST_QUEUE_ARN: v.optional(v.pipe(v.string(), v.startsWith('arn:'))),
  BROADCAST_SCHEDULER_ROLE_ARN: v.optional(v.pipe(v.string(), v.startsWith('arn:'))),
  /** The queue EventBridge Scheduler writes a start step to when it cannot put it on the broadcast queue (deployed: the stack's). */
  BROADCAST_SCHEDULE_DLQ_ARN: v.optional(v.pipe(v.string(), v.startsWith('arn:'))),
  /** The export queue (an SQS queue URL): audience exports too large for their request, taken by functions/audiences/export-work.ts. */
  EXPORT_QUEUE_URL: optionalUrl,
  /** Contacts an audience export writes within its request before it is queued instead (shared/contacts/export-policy.ts); tests lower it. */
  EXPORT_SYNC_MAX_CONTACTS: v.optional(v.pipe(v.string(), v.transform(Number), v.integer(), v.minValue(0), v.maxValue(25_000))),
  /** A local EventBridge Scheduler endpoint: the stand-in of `npm start` and the tests (dev/local/scheduler.ts). */
  SCHEDULER_ENDPOINT: optionalUrl,
  /** Days that email records, events and webhook deliveries are kept (DynamoDB TTL), then removed. */
  RETENTION_DAYS: v.optional(v.pipe(v.string(), v.transform(Number), v.integer(), v.minValue(1), v.maxValue(3650)), '30'),
  /** First retry delay of a throttled message; each later attempt waits twice as long (tests set 0). */
  RETRY_BACKOFF_SECONDS: v.optional(v.pipe(v.string(), v.transform(Number), v.integer(), v.minValue(0), v.maxValue(900)), '10'),
  /**
   * Messages per second SES takes in this region, instead of reading it from SES (GetAccount's
   * `SendQuota.MaxSendRate`): a benchmark's stand-in, or an emulator without an account.
   */
  SES_MAX_SEND_RATE: v.optional(v.pipe(v.string(), v.transform(Number), v.number(), v.minValue(0.01), v.maxValue(1_000_000))),
  /**
   * Share of the SES rate that broadcasts leave to interactive sends (`/api/email/send`, OTP,
   * transactional, batch), which are not paced: `0.1` paces broadcasts at 90% of the SES rate.
   */
  SES_RATE_HEADROOM: v.optional(v.pipe(v.string(), v.transform(Number), v.number(), v.minValue(0), v.maxValue(0.9)), '0.1'),
  /**
   * First wait, in milliseconds, before the table client retries a batch's unprocessed part or a transaction
   * lost to another (each retry up to twice as long, jittered). The fault tests set 1: they prove the retries, not the waits.
   */
  DYNAMODB_BACKOFF_MS: v.optional(v.pipe(v.string(), v.transform(Number), v.integer(), v.minValue(1), v.maxValue(1000)), '25'),
  /** First wait, in seconds, of a broadcast batch that SES throttled (shared/broadcasts/pacing.ts); each throttled attempt in a row waits twice as long. */
  BROADCAST_THROTTLE_DELAY_SECONDS: v.optional(v.pipe(v.string(), v.transform(Number), v.integer(), v.minValue(0), v.maxValue(900)), '5'),
  /**
   * Milliseconds after which a batch lease not renewed was abandoned by a crashed attempt (shared/broadcasts/engine.ts): a live one
   * renews it before every group it sends, a few seconds apart. The fault tests set 0.
   */
  BROADCAST_CLAIM_TIMEOUT_MS: v.optional(v.pipe(v.string(), v.transform(Number), v.integer(), v.minValue(0), v.maxValue(3_600_000)), '300000'),
  /** SES configuration set every send names, so its bounce/complaint/delivery events reach the feedback function (deployed only). */
  SES_CONFIGURATION_SET: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{1,64}$/))),
  /** Scheme, host and optional path of the public pages when a custom domain fronts the API: `https://mail.example.com`. */
  PUBLIC_BASE_URL: optionalUrl,
  /**
   * The sender of the deployment's own mail to people (sign-in codes, team invitations): `Postlane <no-reply@mail.example.com>`,
   * at a domain SES may send from in every region (context `postlane:mailFrom`; `npm start` sets one). Unset, that mail is not sent.
   */
  SERVICE_MAIL_FROM: v.optional(v.pipe(v.string(), v.regex(/^[^\r\n]{3,320}$/, 'must be an address or Name <address> on one line'))),
  /** Base of the hosted form pages (`{FORMS_URL}/f/<slug>`) when they have an address of their own; else PUBLIC_BASE_URL. */
  FORMS_URL: optionalUrl,
  /** Key for signing unsubscribe and preference links, given directly (local runs, tests). */
  SIGNING_SECRET: v.optional(v.pipe(v.string(), v.minLength(32, 'must be at least 32 characters'))),
  /** Name of the Secrets Manager secret holding that key (deployed). */
  SIGNING_SECRET_PARAMETER: v.optional(v.pipe(v.string(), v.minLength(1))),
  /**
   * The value the distributions send in `x-postlane-origin-verify` (deployed: the stack's generated secret), without which
   * CloudFront-Viewer-Address is not believed (shared/platform/http/caller-address.ts). Unset (local runs), never believed.
   */
  ORIGIN_VERIFY_SECRET: v.optional(v.pipe(v.string(), v.minLength(32, 'must be at least 32 characters'))),
  /** Origins whose pages may call the `cors` routes (public form view and submit): `*` or `https://a.example,https://b.example`. */
  CORS_ALLOWED_ORIGINS: v.optional(
    v.pipe(
      v.string(),
      v.regex(
        /^\s*(\*|https?:\/\/[^\s,/]+)(\s*,\s*(\*|https?:\/\/[^\s,/]+))*\s*$/,
        'must be * or a comma-separated list of origins such as https://www.example.com',
      ),
    ),
    '*',
  ),
});

export type Config = v.InferOutput<typeof ConfigSchema>;

/** Reads and validates the environment; a bad value stops the process naming the variable. */
export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([name, value]) => name in ConfigSchema.entries && value !== undefined && value !== ''));
  const result = v.safeParse(ConfigSchema, present);
  if (!result.success) {
    const issue = result.issues[0];
    const name = issue.path?.map((item) => String(item.key)).join('.') ?? 'environment';
    throw new Error(`Invalid environment variable ${name}: ${issue.message}`);
  }
  return result.output;
}

export const config: Config = readConfig();

/**
 * The SDK clients' logger. With the SDK's default one, whose `info` does
 * nothing, every call still builds its log entry first: the input and output
 * copied through their schemas, a few percent of a request's CPU. The SDK
 * calls `info` and `error` only where they exist, so without them it builds
 * none; nothing reads the SDK's own log.
 */
type SdkLogger = NonNullable<DynamoDBClientConfig['logger']>;
const SDK_LOGGER = { debug: () => {}, warn: () => {} } as unknown as SdkLogger;

/**
 * Where an SDK client connects: the configured region, or a local stand-in
 * when `endpoint` is set. Local endpoints take credentials of any value; real
 * AWS uses the default provider chain.
 */
export function awsConnection(endpoint: string | undefined): {
  region: string;
  logger: SdkLogger;
  endpoint?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string };
} {
  const connection = { region: config.AWS_REGION, logger: SDK_LOGGER };
  return endpoint ? { ...connection, endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : connection;
}
