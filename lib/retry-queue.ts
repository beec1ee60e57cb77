import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { MAX_QUEUED_MESSAGE_BYTES, MAX_RECEIVES, RETRY_MAX_CONCURRENCY, WORKER_BATCH_SIZE } from '#shared/sending/retry-policy.ts';
import type { AttachmentsAccess, SesAction, TableAction } from '#shared/platform/http/routes.ts';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { WorkerQueue, type WorkerQueueSettings } from './worker-queue.ts';

/**
 * The worker no HTTP route invokes: the infra tests check its grants against
 * this. getEmailRecord (GetItem); the record's move to sent, and failQueuedEmail's
 * transaction of the record and the usage refund (UpdateItem), each with its
 * `email.sent` or `email.failed` event (PutItem); the bodies of messages too
 * large for the queue, from the attachments bucket.
 */
export const RETRY_WORKER = {
  handler: 'email/send-queued',
  table: ['GetItem', 'UpdateItem', 'PutItem'],
  ses: ['SendEmail'],
  attachments: ['dequeue'],
} as const satisfies { handler: string; table: readonly TableAction[]; ses: readonly SesAction[]; attachments: readonly AttachmentsAccess[] };

/** The retry queue: a throttled message is tried MAX_RECEIVES times, then dead-lettered. */
export const RETRY_QUEUE = {
  name: 'retry',
  worker: RETRY_WORKER,
  maxReceiveCount: MAX_RECEIVES,
  batchSize: WORKER_BATCH_SIZE,
  maxConcurrency: RETRY_MAX_CONCURRENCY,
  maxMessageSizeBytes: MAX_QUEUED_MESSAGE_BYTES,
  deadLetterAlarmDescription: 'throttled emails failed for good (retry dead-letter queue not empty); their records say failed and their quota was refunded',
} as const satisfies WorkerQueueSettings;

export interface RetryQueueProps {
  /** `postlane-<stage>`: the queues are `<prefix>-retry` and `<prefix>-retry-dlq`. */
  readonly namePrefix: string;
  readonly table: ITableV2;
  readonly sesConfigurationSet: string;
  /** Where a send puts a message too large for the queue (`queued/`), for the worker to read. */
  readonly attachmentsBucket: IBucket;
}

/**
 * The retry queue for throttled sends (shared/sending/retry.ts): the queue the
 * send functions put messages on, its dead-letter queue, the worker that
 * sends them later, and an alarm when anything reaches the dead letters.
 */
export class RetryQueue extends WorkerQueue {
  constructor(scope: Construct, id: string, props: RetryQueueProps) {
    super(scope, id, props, RETRY_QUEUE);
    this.worker.function.addEnvironment('RETRY_QUEUE_URL', this.queue.queueUrl);
  }
}
