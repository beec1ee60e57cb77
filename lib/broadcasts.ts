import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import type { SecretName, SesAction, TableAction } from '#shared/platform/http/routes.ts';
import { BROADCAST_MAX_RECEIVES, BROADCAST_MAX_CONCURRENCY, BROADCAST_WORKER_BATCH_SIZE } from '#shared/broadcasts/policy.ts';
import { acknowledgeFindings } from './nag.ts';
import { WorkerQueue } from './worker-queue.ts';

/**
 * The broadcast worker, which no HTTP route invokes (shared/broadcasts/engine.ts):
 * the broadcast, its batches and their leases (GetItem); contacts,
 * suppressions and earlier email records of a batch, the domain check
 * (BatchGetItem); the audience's pages and unfinished batches (Query);
 * leases, the `broadcast.sent` event (PutItem); status, counters, lease
 * renewals, quota, the send-rate buckets (UpdateItem); each message's record
 * with its event (BatchWriteItem); a planned page with its batches and
 * finishBatch (transactions of puts and of updates). It queues its own next
 * steps, and reads SES's maximum send rate (GetAccount, which has no
 * resource-level permission) to pace by it.
 */
export const BROADCAST_WORKER = {
  handler: 'broadcasts/work',
  table: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'BatchWriteItem'],
  ses: ['SendEmail'],
  sesAccount: ['GetAccount'],
  secrets: ['linkSigning'],
} as const satisfies {
  handler: string;
  table: readonly TableAction[];
  ses: readonly SesAction[];
  sesAccount: readonly string[];
  secrets: readonly SecretName[];
};

export interface BroadcastEngineProps {
  /** `postlane-<stage>`: the queues are `<prefix>-broadcasts` and `<prefix>-broadcasts-dlq`. */
  readonly namePrefix: string;
  readonly table: ITableV2;
  readonly sesConfigurationSet: string;
  readonly linkSigningSecretName: string;
}

/**
 * The broadcast engine: its queue of steps with a dead-letter queue and an
 * alarm, the worker that plans and sends, and the role EventBridge Scheduler
 * assumes to start a scheduled broadcast (it may only put a step on this queue).
 */
export class BroadcastEngine extends WorkerQueue {
  readonly schedulerRole: Role;

  constructor(scope: Construct, id: string, props: BroadcastEngineProps) {
    super(
      scope,
      id,
      { ...props, secretNames: { linkSigning: props.linkSigningSecretName } },
      {
        name: 'broadcasts',
        worker: BROADCAST_WORKER,
        maxReceiveCount: BROADCAST_MAX_RECEIVES,
        batchSize: BROADCAST_WORKER_BATCH_SIZE,
        maxConcurrency: BROADCAST_MAX_CONCURRENCY,
        deadLetterAlarmDescription:
          'a broadcast step failed for good (broadcast dead-letter queue not empty): its batch is unfinished; redrive it once the cause is fixed',
      },
    );
    // The worker queues its own next steps (planning pages, batches, a throttled batch later).
    this.worker.function.addEnvironment('BROADCAST_QUEUE_URL', this.queue.queueUrl);
    this.queue.grantSendMessages(this.worker.function);
    this.worker.function.addToRolePolicy(new PolicyStatement({ actions: BROADCAST_WORKER.sesAccount.map((action) => `ses:${action}`), resources: ['*'] }));
    acknowledgeFindings(this.worker, {
      'AwsSolutions-IAM5[Resource::*]': "ses:GetAccount supports no resource-level permission; it only reads the account's sending quota",
    });
    // Scheduler puts a start step on the queue asynchronously and drops it after a day of failures; the schedules
    // (made at run time, shared/broadcasts/scheduler.ts) keep no dead letter, and the `SchedulerDropped`
    // alarm (lib/alarms.ts) says when one was dropped: the broadcast is still `scheduled` and can be sent again.
    this.schedulerRole = new Role(this, 'SchedulerRole', {
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com'),
      description: 'EventBridge Scheduler: puts the start step of a scheduled broadcast on the broadcast queue, nothing else',
    });
    this.queue.grantSendMessages(this.schedulerRole);
  }
}
