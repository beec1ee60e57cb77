import { Duration } from 'aws-cdk-lib';
import type { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { MAX_QUEUED_MESSAGE_BYTES, MAX_RECEIVES, WORKER_BATCH_SIZE } from '#shared/model/retry-policy.ts';
import type { AttachmentsAccess, SesAction, TableAction } from '#shared/http/routes.ts';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { postlaneAlarm } from './alarms.ts';
import { EndpointFunction } from './endpoint-function.ts';
import { acknowledgeFindings } from './nag.ts';

/**
 * The worker no HTTP route invokes: the infra tests check its grants against
 * this. getEmailRecord (GetItem); markQueuedEmailSent, and failQueuedEmail's
 * transaction of the record and the usage refund (UpdateItem); the bodies of
 * messages too large for the queue, from the attachments bucket.
 */
export const RETRY_WORKER = {
  handler: 'email/send-queued',
  table: ['GetItem', 'UpdateItem'],
  ses: ['SendEmail'],
  attachments: ['dequeue'],
} as const satisfies { handler: string; table: readonly TableAction[]; ses: readonly SesAction[]; attachments: readonly AttachmentsAccess[] };

/**
 * What SQS grants an event source's function: receive, delete, change
 * visibility (the worker's backoff), and read the queue's URL and attributes.
 */
export const WORKER_QUEUE_ACTIONS = [
  'sqs:ReceiveMessage',
  'sqs:ChangeMessageVisibility',
  'sqs:GetQueueUrl',
  'sqs:DeleteMessage',
  'sqs:GetQueueAttributes',
] as const;

/**
 * AWS's advice for an SQS event source: a visibility timeout of at least six
 * times the function's timeout, so a batch still in flight (Lambda retrying a
 * throttled invocation) is not handed to a second worker.
 */
const VISIBILITY_PER_FUNCTION_TIMEOUT = 6;

export interface RetryQueueProps {
  /** `postlane-<stage>`: the queues are `<prefix>-retry` and `<prefix>-retry-dlq`. */
  readonly namePrefix: string;
  readonly table: ITableV2;
  readonly sesConfigurationSet: string;
  /** Where a send puts a message too large for the queue (`queued/`), for the worker to read. */
  readonly attachmentsBucket: IBucket;
}

/**
 * The retry queue for throttled sends (shared/domain/retry.ts): the queue the
 * send functions put messages on, its dead-letter queue, the worker that
 * sends them later, and an alarm when anything reaches the dead letters.
 * Both queues are encrypted with SQS-managed keys (no KMS key to pay for or
 * grant) and refuse requests not made over TLS.
 */
export class RetryQueue extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly worker: EndpointFunction;
  readonly deadLetterAlarm: Alarm;

  constructor(scope: Construct, id: string, props: RetryQueueProps) {
    super(scope, id);
    this.deadLetterQueue = new Queue(this, 'DeadLetters', {
      queueName: `${props.namePrefix}-retry-dlq`,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // SQS's longest: time for an operator to look at a message and redrive it.
      retentionPeriod: Duration.days(14),
    });
    this.worker = new EndpointFunction(this, 'Worker', {
      handler: RETRY_WORKER.handler,
      table: props.table,
      tableActions: RETRY_WORKER.table,
      sesActions: RETRY_WORKER.ses,
      sesConfigurationSet: props.sesConfigurationSet,
      attachments: { bucket: props.attachmentsBucket, access: RETRY_WORKER.attachments },
    });
    this.queue = new Queue(this, 'Queue', {
      queueName: `${props.namePrefix}-retry`,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      maxMessageSizeBytes: MAX_QUEUED_MESSAGE_BYTES,
      visibilityTimeout: Duration.seconds(this.worker.function.timeout!.toSeconds() * VISIBILITY_PER_FUNCTION_TIMEOUT),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: MAX_RECEIVES },
    });
    this.worker.function.addEnvironment('RETRY_QUEUE_URL', this.queue.queueUrl);
    this.worker.function.addEventSource(new SqsEventSource(this.queue, { batchSize: WORKER_BATCH_SIZE, reportBatchItemFailures: true }));
    acknowledgeFindings(this.deadLetterQueue, {
      'Serverless-SQSRedrivePolicy': 'The end of the line: messages here are kept 14 days for an operator, and the alarm below says one arrived',
    });
    acknowledgeFindings(this.worker.function, {
      'Serverless-LambdaEventSourceMappingDestination':
        "SQS event sources take no on-failure destination (streams and Kafka do): a message that keeps failing moves to the dead-letter queue by the queue's redrive policy",
    });
    this.deadLetterAlarm = postlaneAlarm(this, 'DeadLettersAlarm', {
      metric: this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
      threshold: 1,
      description: 'throttled emails failed for good (retry dead-letter queue not empty); their records say failed and their quota was refunded',
    });
  }
}
