import { Duration } from 'aws-cdk-lib';
import type { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { AttachmentsAccess, SecretName, SesAction, TableAction } from '#shared/platform/http/routes.ts';
import { BROADCAST_MAX_RECEIVES, BROADCAST_MAX_CONCURRENCY, BROADCAST_WORKER_BATCH_SIZE } from '#shared/broadcasts/policy.ts';
import { postlaneAlarm } from './alarms.ts';
import { acknowledgeFindings } from './nag.ts';
import { deadLetters, WorkerQueue } from './worker-queue.ts';

/**
 * The broadcast worker, which no HTTP route invokes (shared/broadcasts/engine.ts):
 * the broadcast, its batches and their leases (GetItem); contacts,
 * suppressions and earlier email records of a batch, the domain check
 * (BatchGetItem); the audience's pages and unfinished batches (Query);
 * leases, the `broadcast.sent` event (PutItem); status, counters, lease
 * renewals, quota, the send-rate buckets (UpdateItem); each message's record
 * with its event (BatchWriteItem); a planned page with its batches and
 * finishBatch (transactions of puts and of updates). It queues its own next
 * steps, reads SES's maximum send rate (GetAccount, which has no
 * resource-level permission) to pace by it, and keeps each message's content
 * in the attachments bucket.
 */
export const BROADCAST_WORKER = {
  handler: 'broadcasts/work',
  table: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'BatchWriteItem'],
  ses: ['SendEmail'],
  sesAccount: ['GetAccount'],
  secrets: ['linkSigning'],
  attachments: ['storeContent'],
} as const satisfies {
  handler: string;
  table: readonly TableAction[];
  ses: readonly SesAction[];
  sesAccount: readonly string[];
  secrets: readonly SecretName[];
  attachments: readonly AttachmentsAccess[];
};

export interface BroadcastEngineProps {
  /** `postlane-<stage>`: the queues are `<prefix>-broadcasts`, `<prefix>-broadcasts-dlq` and `<prefix>-broadcast-schedules-dlq`. */
  readonly namePrefix: string;
  readonly table: ITableV2;
  readonly sesConfigurationSet: string;
  readonly linkSigningSecretName: string;
  /** Where each message's content is kept (`content/`). */
  readonly attachmentsBucket: IBucket;
}

/**
 * The broadcast engine: its queue of steps with a dead-letter queue and an
 * alarm, the worker that plans and sends, the role EventBridge Scheduler
 * assumes to start a scheduled broadcast (it may only put a step on this
 * queue, or a dead letter on the schedules'), and the schedules' dead-letter
 * queue with its alarm.
 */
export class BroadcastEngine extends WorkerQueue {
  readonly schedulerRole: Role;
  /** Where Scheduler writes a start step it could not put on the queue (every schedule's DeadLetterConfig). */
  readonly scheduleDeadLetterQueue: Queue;
  readonly scheduleDeadLetterAlarm: Alarm;

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
    // Scheduler puts a start step on the queue asynchronously, retrying as BROADCAST_SCHEDULE_RETRY says; then, as
    // every schedule's DeadLetterConfig says (made at run time, shared/broadcasts/scheduler.ts), it writes the
    // step here with the role below, for `admin broadcasts replay`. A queue of its own, not the broadcast queue's
    // dead-letter queue: that one is redriven wholesale to its source queue (SQS's message move task), which SQS
    // refuses for messages a non-SQS source such as Scheduler wrote, and a stale start must be checked before it is
    // replayed; the Scheduler role also gets no way into a queue that is redriven unchecked.
    this.scheduleDeadLetterQueue = deadLetters(this, 'ScheduleDeadLetters', `${props.namePrefix}-broadcast-schedules-dlq`);
    const isDeadLetterQueue =
      "The end of the line of the broadcasts' schedules (their DeadLetterConfig): kept 14 days for admin broadcasts replay, and the alarm below says one arrived";
    acknowledgeFindings(this.scheduleDeadLetterQueue, { 'AwsSolutions-SQS3': isDeadLetterQueue, 'Serverless-SQSRedrivePolicy': isDeadLetterQueue });
    this.scheduleDeadLetterAlarm = postlaneAlarm(this, 'ScheduleDeadLettersAlarm', {
      metric: this.scheduleDeadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
      threshold: 1,
      description:
        'a scheduled broadcast did not start (broadcast schedules dead-letter queue not empty): Scheduler could not put its start step on the broadcast queue; replay it with admin broadcasts replay once the cause is fixed',
    });
    this.schedulerRole = new Role(this, 'SchedulerRole', {
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com'),
      description: 'EventBridge Scheduler: puts the start step of a scheduled broadcast on the broadcast queue, or on its dead-letter queue, nothing else',
    });
    this.queue.grantSendMessages(this.schedulerRole);
    // The schedule's execution role is what writes its dead letter (Scheduler's user guide, "Configuring a schedule's dead-letter queue").
    this.scheduleDeadLetterQueue.grant(this.schedulerRole, 'sqs:SendMessage');
  }
}
