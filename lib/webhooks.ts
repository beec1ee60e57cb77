import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import type { TableAction } from '#shared/platform/http/routes.ts';
import { WEBHOOK_BATCH_SIZE, WEBHOOK_MAX_CONCURRENCY, WEBHOOK_MAX_RECEIVES, WEBHOOK_SLOW_MAX_CONCURRENCY } from '#shared/webhooks/schedule.ts';
import { type DrainedQueue, type WorkerLaneSettings, WorkerQueue, type WorkerQueueSettings } from './worker-queue.ts';

/**
 * The delivery worker, which no HTTP route invokes: getDelivery, getEndpoint
 * and the stored event of a replay (GetItem); claimAttempt, finishAttempt's
 * delivery update, the endpoint's failure run and disabling (UpdateItem);
 * finishAttempt's attempt record and `webhook.disabled` (PutItem), whose
 * deliveries the stream's fan-out makes (lib/event-fan-out.ts).
 */
export const WEBHOOK_WORKER = {
  handler: 'webhooks/deliver',
  table: ['GetItem', 'PutItem', 'UpdateItem'],
} as const satisfies { handler: string; table: readonly TableAction[] };

/** The webhook queue: each attempt is one message, its backoff the message's delay (shared/webhooks/schedule.ts). */
export const WEBHOOK_QUEUE = {
  name: 'webhooks',
  worker: WEBHOOK_WORKER,
  maxReceiveCount: WEBHOOK_MAX_RECEIVES,
  batchSize: WEBHOOK_BATCH_SIZE,
  maxConcurrency: WEBHOOK_MAX_CONCURRENCY,
  deadLetterAlarmDescription: 'webhook deliveries stopped (webhook dead-letter queue not empty): the table or the queue failed for a message five times',
} as const satisfies WorkerQueueSettings;

/**
 * The slow lane (shared/webhooks/queue.ts): the deliveries of endpoints marked
 * slow, drained by the same worker with at most WEBHOOK_SLOW_MAX_CONCURRENCY
 * batches at once, so slow receivers hold that many workers, never the normal
 * lane's WEBHOOK_MAX_CONCURRENCY.
 */
export const WEBHOOK_SLOW_QUEUE = {
  name: 'webhooks-slow',
  maxReceiveCount: WEBHOOK_MAX_RECEIVES,
  maxConcurrency: WEBHOOK_SLOW_MAX_CONCURRENCY,
  deadLetterAlarmDescription:
    'slow-lane webhook deliveries stopped (webhook slow-lane dead-letter queue not empty): the table or the queue failed for a message five times',
} as const satisfies WorkerLaneSettings;

export interface WebhookDeliveryProps {
  /** `postlane-<stage>`: the queues are `<prefix>-webhooks`, `<prefix>-webhooks-slow` and a `-dlq` of each. */
  readonly namePrefix: string;
  readonly table: ITableV2;
  /** Days events and deliveries are kept (RETENTION_DAYS); 30 by default. */
  readonly retentionDays?: number;
}

/**
 * Outbound webhooks: the queues events fan out onto (the normal lane and the
 * slow one), each with its dead-letter queue and an alarm, and the one worker
 * that drains both, makes each attempt and queues the next
 * (shared/webhooks/worker.ts).
 */
export class WebhookDelivery extends WorkerQueue {
  readonly slowLane: DrainedQueue;
  private readonly retentionDays: number;

  constructor(scope: Construct, id: string, props: WebhookDeliveryProps) {
    super(scope, id, props, WEBHOOK_QUEUE);
    this.slowLane = this.addLane('SlowLane', WEBHOOK_SLOW_QUEUE);
    this.retentionDays = props.retentionDays ?? 30;
    // The worker queues each next attempt (and webhook.disabled's deliveries) itself.
    this.grantEnqueue(this.worker.function);
  }

  /**
   * Lets a function queue deliveries: the stream's fan-out, and the worker
   * itself (SendMessage on the two lanes' queues only, their URLs, and the
   * retention the deliveries are kept for).
   */
  grantEnqueue(fn: IFunction & { addEnvironment(key: string, value: string): unknown }): void {
    fn.addToRolePolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.queue.queueArn, this.slowLane.queue.queueArn] }));
    fn.addEnvironment('WEBHOOK_QUEUE_URL', this.queue.queueUrl);
    fn.addEnvironment('WEBHOOK_SLOW_QUEUE_URL', this.slowLane.queue.queueUrl);
    fn.addEnvironment('RETENTION_DAYS', String(this.retentionDays));
  }
}
