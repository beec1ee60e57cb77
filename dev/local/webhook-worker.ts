/**
 * The webhook worker locally: the handler the stack deploys, fed by queue
 * pollers as the SQS event sources feed it in AWS, one set per lane
 * (shared/webhooks/queue.ts). Imports shared/config.ts, so load it only once
 * the environment names the local endpoints (WEBHOOK_QUEUE_URL and
 * WEBHOOK_SLOW_QUEUE_URL: queues made with `createRetryQueues`, as the stack
 * makes `<prefix>-webhooks` and `<prefix>-webhooks-slow` with their
 * dead-letter queues).
 */
import { handler } from '#functions/webhooks/deliver.ts';
import { config } from '#shared/config.ts';
import { sqs } from '#shared/email/retry-queue.ts';
import { WEBHOOK_BATCH_SIZE } from '#shared/webhooks/schedule.ts';
import { startQueuePoller, type QueuePoller } from './queue-poller.ts';

/**
 * Batches in flight at once on the normal lane: Lambda polls an SQS queue
 * with five concurrent batches at least, so a batch held by a slow receiver
 * leaves the others going.
 */
export const LOCAL_WEBHOOK_CONCURRENCY = 5;

/**
 * Batches in flight at once on the slow lane: fewer than the normal lane's,
 * as the stack bounds the slow lane's event source (WEBHOOK_SLOW_MAX_CONCURRENCY)
 * and leaves the normal one to the region's concurrency.
 */
export const LOCAL_WEBHOOK_SLOW_CONCURRENCY = 2;

export interface WebhookWorkerOptions {
  queueUrl?: string | undefined;
  slowQueueUrl?: string | undefined;
  /** Pollers of the normal lane. */
  concurrency?: number;
  /** Pollers of the slow lane. */
  slowConcurrency?: number;
}

function startPollers(queueUrl: string, count: number): Promise<QueuePoller[]> {
  return Promise.all(
    Array.from({ length: count }, () =>
      startQueuePoller({ client: sqs, queueUrl, name: 'webhooks/deliver', handler, batchSize: WEBHOOK_BATCH_SIZE, region: config.AWS_REGION }),
    ),
  );
}

export async function startWebhookWorker(options: WebhookWorkerOptions = {}): Promise<QueuePoller> {
  const {
    queueUrl = config.WEBHOOK_QUEUE_URL,
    slowQueueUrl = config.WEBHOOK_SLOW_QUEUE_URL,
    concurrency = LOCAL_WEBHOOK_CONCURRENCY,
    slowConcurrency = LOCAL_WEBHOOK_SLOW_CONCURRENCY,
  } = options;
  if (!queueUrl) throw new Error('WEBHOOK_QUEUE_URL is not set');
  if (!slowQueueUrl) throw new Error('WEBHOOK_SLOW_QUEUE_URL is not set');
  const pollers = (await Promise.all([startPollers(queueUrl, concurrency), startPollers(slowQueueUrl, slowConcurrency)])).flat();
  return { stop: async () => void (await Promise.all(pollers.map((poller) => poller.stop()))) };
}
