/**
 * Records, in each test worker, every AWS call a function makes while the
 * tests run, as IAM sees it: the action and the resource it is authorized
 * against (test/support/iam.ts). Attached from the tests' side: middleware on
 * the SDK clients, the S3 signer, and wrappers around the two local stand-ins
 * (the link-signing key and domain verification) for the calls they replace;
 * the bundle suite records its functions' calls on the wire instead
 * (test/bundles/aws-gateway.ts), with the same mappings.
 * test/support/global-setup.ts checks the lot against the synthesized roles.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { MiddlewareStack } from '@smithy/types';
import { currentHandler } from '#dev/local/invocation.ts';
import { TRACKING_OPTIONS_TAG } from '#shared/sending/message-tags.ts';
import { TRACKING_SET_SUFFIX } from '#shared/sending/tracking.ts';
import type { AwsCall, CallResource } from './iam.ts';

const calls = new Map<string, AwsCall>();

/** Notes a call of the function whose invocation is in progress; calls outside any (test setup) are the tests' own. */
export function recordCall(action: string, resource: CallResource): void {
  const handler = currentHandler();
  if (handler) recordCallOf(handler, action, resource);
}

/** Notes a call of `functions/<handler>.ts` made outside this process (a bundle the bundle suite runs). */
export function recordCallOf(handler: string, action: string, resource: CallResource): void {
  const call = { handler, action, resource };
  calls.set(JSON.stringify(call), call);
}

/** The calls made since the last file's, for the global teardown: one file per test file, also when it made none. */
export function writeRecordedCalls(directory: string, testFile: string): void {
  writeFileSync(join(directory, `${randomUUID()}.json`), JSON.stringify({ testFile, calls: [...calls.values()] }));
  // The next test file of this worker (isolation off) starts a record of its own.
  calls.clear();
}

/** Transactions are authorized per item, by the action each item stands for. */
const TRANSACT_ITEM_ACTIONS: Record<string, string> = {
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  ConditionCheck: 'ConditionCheckItem',
  Get: 'GetItem',
};

/**
 * The IAM actions of one DynamoDB request: a Query of an index is authorized
 * on the index's ARN; `remote`: the call went to another region's replica
 * (an account's home), authorized on that replica's ARN (its index's, for a
 * Query of an index).
 */
export function dynamoActions(operation: string, input: Record<string, any>, remote = false): [string, CallResource][] {
  const table: CallResource = remote ? { kind: 'table', remote } : { kind: 'table' };
  switch (operation) {
    case 'TransactWriteItems':
    case 'TransactGetItems':
      return (input.TransactItems as Record<string, unknown>[]).map((item) => [`dynamodb:${TRANSACT_ITEM_ACTIONS[Object.keys(item)[0]!]}`, table]);
    case 'Query':
    case 'Scan':
      return [[`dynamodb:${operation}`, input.IndexName ? { kind: 'index', index: input.IndexName, ...(remote ? { remote } : {}) } : table]];
    default:
      return [[`dynamodb:${operation}`, table]];
  }
}

/** `"Name" <a@Example.com>` → `example.com`: SES authorizes sending on the identity of the sender's domain. */
function senderDomain(from: string): string {
  return from
    .slice(from.lastIndexOf('@') + 1)
    .replace(/>.*$/, '')
    .trim()
    .toLowerCase();
}

/** SES actions on the account itself (its suppression list, its sending quota), which name no resource. */
const ACCOUNT_LEVEL_SES = new Set(['ListSuppressedDestinations', 'GetSuppressedDestination', 'GetAccount']);

/**
 * SendEmail is authorized on the sender's identity and on the configuration
 * set it names: deployed, every sending function names the stack's
 * (SES_CONFIGURATION_SET), or its tracking sibling for a message that tracks
 * opens or clicks (shared/sending/tracking.ts). Where no set is named (in
 * process, beside the emulator), the message's tracking tag says which the
 * deployed function would have named.
 */
export function sesActions(operation: string, input: Record<string, any>): [string, CallResource][] {
  if (operation === 'SendEmail') {
    const named: string | undefined = input.ConfigurationSetName;
    const tracking =
      named === undefined ? (input.EmailTags ?? []).some((tag: { Name: string }) => tag.Name === TRACKING_OPTIONS_TAG) : named.endsWith(TRACKING_SET_SUFFIX);
    return [
      ['ses:SendEmail', { kind: 'identity', identity: senderDomain(input.FromEmailAddress) }],
      ['ses:SendEmail', tracking ? { kind: 'configurationSet', tracking } : { kind: 'configurationSet' }],
    ];
  }
  if (ACCOUNT_LEVEL_SES.has(operation)) return [[`ses:${operation}`, { kind: 'account' }]];
  return [[`ses:${operation}`, { kind: 'identity', identity: input.EmailIdentity }]];
}

/** The queues the code sends to; SendMessageBatch is authorized as sqs:SendMessage. */
// Read at each call: a test file may name its own webhook queue after recording starts (test/webhooks/support.ts).
const QUEUE_URLS = {
  retry: 'RETRY_QUEUE_URL',
  webhooks: 'WEBHOOK_QUEUE_URL',
  webhooksSlow: 'WEBHOOK_SLOW_QUEUE_URL',
  broadcast: 'BROADCAST_QUEUE_URL',
  export: 'EXPORT_QUEUE_URL',
} as const;

/** A queue URL the configuration does not name is recorded as such: no role grants it, so the check reports the call. */
export function sqsActions(operation: string, input: Record<string, any>): [string, CallResource][] {
  const action = `sqs:${operation === 'SendMessageBatch' ? 'SendMessage' : operation === 'DeleteMessageBatch' ? 'DeleteMessage' : operation}`;
  const queue = (Object.keys(QUEUE_URLS) as (keyof typeof QUEUE_URLS)[]).find((name) => input.QueueUrl === process.env[QUEUE_URLS[name]]);
  return [[action, queue ? { kind: 'queue', queue } : { kind: 'unknownQueue', url: String(input.QueueUrl) }]];
}

/** PutEvents is authorized on each bus its entries name (a name, or a bus's ARN). */
export function eventsActions(operation: string, input: Record<string, any>): [string, CallResource][] {
  const buses = new Set<string>(
    (input.Entries ?? []).map((entry: { EventBusName?: string }) => (entry.EventBusName ?? 'default').replace(/^arn:.*:event-bus\//, '')),
  );
  return [...buses].map((bus) => [`events:${operation}`, { kind: 'eventBus', bus }]);
}

/** The one secret the functions read, by the name the stack gives them (SIGNING_SECRET_PARAMETER); any other is recorded by its name. */
export function secretsActions(operation: string, input: Record<string, any>, linkSigningName: string | undefined): [string, CallResource][] {
  const resource: CallResource =
    input.SecretId === linkSigningName ? { kind: 'secret', secret: 'linkSigning' } : { kind: 'unknownSecret', name: String(input.SecretId) };
  return [[`secretsmanager:${operation}`, resource]];
}

/**
 * An S3 request, path-style (`/<bucket>/<key>`): a GET is authorized as
 * s3:GetObject, and needs s3:ListBucket too for a missing object to be S3's
 * 404 rather than a 403, which the code relies on to answer a lost upload.
 */
export function s3Actions(method: string, path: string): [string, CallResource][] {
  const key = path.split('?')[0]!.split('/').slice(2).map(decodeURIComponent).join('/');
  if (method === 'PUT') return [['s3:PutObject', { kind: 'object', key }]];
  // HEAD is authorized as GET is.
  if (method === 'GET' || method === 'HEAD')
    return [
      ['s3:GetObject', { kind: 'object', key }],
      ['s3:ListBucket', { kind: 'bucket' }],
    ];
  if (method === 'DELETE') return [['s3:DeleteObject', { kind: 'object', key }]];
  return [[`s3:${method}`, { kind: 'object', key }]];
}

/** Schedules are authorized by name; creating or moving one also passes the scheduler's role. */
export function schedulerActions(operation: string, input: Record<string, any>): [string, CallResource][] {
  const schedule: [string, CallResource] = [`scheduler:${operation}`, { kind: 'schedule', name: input.Name }];
  return operation === 'DeleteSchedule' ? [schedule] : [schedule, ['iam:PassRole', { kind: 'schedulerRole' }]];
}

type Mapper = (operation: string, input: Record<string, any>) => [string, CallResource][];

function recordEvery(stack: MiddlewareStack<any, any>, map: Mapper): void {
  // Once per client: every test file of a worker with isolation off asks again.
  stack.remove('recordAwsCalls');
  stack.add(
    (next, context) => async (args) => {
      const operation = (context.commandName ?? '').replace(/Command$/, '');
      for (const [action, resource] of map(operation, args.input as Record<string, any>)) recordCall(action, resource);
      return next(args);
    },
    { step: 'initialize', name: 'recordAwsCalls' },
  );
}

const RECORDING = Symbol.for('postlane.recordAwsCalls');

/** S3 requests are signed by hand (shared/platform/aws/s3.ts), so they are seen at the signer: path-style locally, `/<bucket>/<key>`. */
async function recordS3(): Promise<void> {
  const { SignatureV4 } = await import('@smithy/signature-v4');
  const prototype = SignatureV4.prototype as unknown as Record<
    'sign' | 'presign',
    (this: { service: string }, request: { method: string; path: string }, ...rest: unknown[]) => Promise<unknown>
  > & { [RECORDING]?: true };
  if (prototype[RECORDING]) return;
  prototype[RECORDING] = true;
  for (const method of ['sign', 'presign'] as const) {
    const original = prototype[method];
    prototype[method] = function (this: { service: string }, request, ...rest) {
      if (this.service === 's3' && typeof request?.method === 'string') {
        for (const [action, resource] of s3Actions(request.method, request.path)) recordCall(action, resource);
      }
      return original.call(this, request, ...rest);
    };
  }
}

/** Attaches the recorders to this worker's clients; load it only once the environment names the local services. */
export async function recordAwsCalls(): Promise<void> {
  const [{ replicaFor }, { DEPLOYMENT_REGIONS, localRegion }, { ses }, { sqs }] = await Promise.all([
    import('#shared/platform/dynamodb/client.ts'),
    import('#shared/platform/dynamodb/regions.ts'),
    import('#shared/sending/transport.ts'),
    import('#shared/sending/retry-queue.ts'),
  ]);
  const { scheduler } = await import('#shared/broadcasts/scheduler-client.ts');
  // Each region's replica (test/regions runs two), judged from the region the request arrived in.
  for (const region of DEPLOYMENT_REGIONS) {
    recordEvery(replicaFor(region).client.middlewareStack, (operation, input) => dynamoActions(operation, input, region !== localRegion()));
  }
  recordEvery(ses.middlewareStack, sesActions);
  recordEvery(sqs.middlewareStack, sqsActions);
  recordEvery(scheduler.middlewareStack, schedulerActions);
  await recordS3();
}
