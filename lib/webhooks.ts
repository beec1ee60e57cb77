import { Duration } from 'aws-cdk-lib';
import type { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { TableAction } from '#shared/http/routes.ts';
import { WEBHOOK_BATCH_SIZE } from '#shared/webhooks/schedule.ts';
import { postlaneAlarm } from './alarms.ts';
import { EndpointFunction } from './endpoint-function.ts';
import { acknowledgeFindings } from './nag.ts';

/**
 * The delivery worker, which no HTTP route invokes: getDelivery, getEndpoint
 * and the stored event of a replay (GetItem); claimAttempt, finishAttempt's
 * delivery update, the endpoint's failure run and disabling (UpdateItem);
 * finishAttempt's attempt record, and `webhook.disabled` with its deliveries
 * (PutItem); the account's endpoints for that event's fan-out (Query).
 */
export const WEBHOOK_WORKER = {
  handler: 'webhooks/deliver',
  table: ['GetItem', 'PutItem', 'Query', 'UpdateItem'],
} as const satisfies { handler: string; table: readonly TableAction[] };

/**
 * Receives of one message before it moves to the dead-letter queue. A
 * receiver's failures never throw (they are attempts, rescheduled as new
 * messages), so only a failing table or queue reaches this.
 */
export const WEBHOOK_MAX_RECEIVES = 5;

/** AWS's advice for an SQS event source: visibility at least six times the function's timeout. */
const VISIBILITY_PER_FUNCTION_TIMEOUT = 6;

export interface WebhookDeliveryProps {
  /** `postlane-<stage>`: the queues are `<prefix>-webhooks` and `<prefix>-webhooks-dlq`. */
  readonly namePrefix: string;
  readonly table: ITableV2;
  /** Days events and deliveries are kept (RETENTION_DAYS); 30 by default. */
  readonly retentionDays?: number;
}

/**
 * Outbound webhooks: the queue events fan out onto, its dead-letter queue
 * with an alarm, and the worker that makes each attempt and queues the next
 * (shared/webhooks/worker.ts). Both queues are encrypted with SQS-managed
 * keys and refuse requests not made over TLS, as the retry queue's.
 */
export class WebhookDelivery extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly worker: EndpointFunction;
  readonly deadLetterAlarm: Alarm;
  private readonly retentionDays: number;

  constructor(scope: Construct, id: string, props: WebhookDeliveryProps) {
    super(scope, id);
    this.retentionDays = props.retentionDays ?? 30;
    this.deadLetterQueue = new Queue(this, 'DeadLetters', {
      queueName: `${props.namePrefix}-webhooks-dlq`,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    this.worker = new EndpointFunction(this, 'Worker', { handler: WEBHOOK_WORKER.handler, table: props.table, tableActions: WEBHOOK_WORKER.table });
    this.queue = new Queue(this, 'Queue', {
      queueName: `${props.namePrefix}-webhooks`,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(this.worker.function.timeout!.toSeconds() * VISIBILITY_PER_FUNCTION_TIMEOUT),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: WEBHOOK_MAX_RECEIVES },
    });
    // The worker queues each next attempt (and webhook.disabled's deliveries) itself.
    this.grantEnqueue(this.worker.function);
    this.worker.function.addEventSource(new SqsEventSource(this.queue, { batchSize: WEBHOOK_BATCH_SIZE, reportBatchItemFailures: true }));
    acknowledgeFindings(this.deadLetterQueue, {
      'Serverless-SQSRedrivePolicy': 'The end of the line: messages here are kept 14 days for an operator, and the alarm below says one arrived',
    });
    acknowledgeFindings(this.worker.function, {
      'Serverless-LambdaEventSourceMappingDestination':
        "SQS event sources take no on-failure destination: a message that keeps failing moves to the dead-letter queue by the queue's redrive policy",
    });
    this.deadLetterAlarm = postlaneAlarm(this, 'DeadLettersAlarm', {
      metric: this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
      threshold: 1,
      description: 'webhook deliveries stopped (webhook dead-letter queue not empty): the table or the queue failed for a message five times',
    });
  }

  /**
   * Lets a function record events: it fans them out onto the queue. Every
   * function that calls recordEvent needs this (SendMessage on this queue
   * only, its URL, and the retention its events are kept for).
   */
  grantEnqueue(fn: IFunction & { addEnvironment(key: string, value: string): unknown }): void {
    fn.addToRolePolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.queue.queueArn] }));
    fn.addEnvironment('WEBHOOK_QUEUE_URL', this.queue.queueUrl);
    fn.addEnvironment('RETENTION_DAYS', String(this.retentionDays));
  }
}
