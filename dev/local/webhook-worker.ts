/**
 * The webhook worker locally: the handler the stack deploys, fed by queue
 * pollers as the SQS event sources feed it in AWS, one per lane
 * (shared/webhooks/queue.ts) with the lane's maximum concurrency. Imports shared/platform/config.ts, so load it only once
 * the environment names the local endpoints (WEBHOOK_QUEUE_URL and
 * WEBHOOK_SLOW_QUEUE_URL: queues made with `createRetryQueues`, as the stack
 * makes `<prefix>-webhooks` and `<prefix>-webhooks-slow` with their
 * dead-letter queues).
 */
import { handler } from '#functions/webhooks/deliver.ts';
import { config } from '#shared/platform/config.ts';
import { sqs } from '#shared/sending/retry-queue.ts';
import { WEBHOOK_BATCH_SIZE, WEBHOOK_MAX_CONCURRENCY, WEBHOOK_SLOW_MAX_CONCURRENCY } from '#shared/webhooks/schedule.ts';
import { startQueuePoller, type QueuePoller } from './queue-poller.ts';

export interface WebhookWorkerOptions {
  queueUrl?: string | undefined;
  slowQueueUrl?: string | undefined;
  /** Batches of the normal lane at once; the stack's WEBHOOK_MAX_CONCURRENCY unless given. */
  concurrency?: number;
  /** Batches of the slow lane at once; the stack's WEBHOOK_SLOW_MAX_CONCURRENCY unless given. */
  slowConcurrency?: number;
}

function startPoller(queueUrl: string, maxConcurrency: number): Promise<QueuePoller> {
  return startQueuePoller({
    client: sqs,
    queueUrl,
    name: 'webhooks/deliver',
    handler,
    batchSize: WEBHOOK_BATCH_SIZE,
    maxConcurrency,
    region: config.AWS_REGION,
  });
}

export async function startWebhookWorker(options: WebhookWorkerOptions = {}): Promise<QueuePoller> {
  const {
    queueUrl = config.WEBHOOK_QUEUE_URL,
    slowQueueUrl = config.WEBHOOK_SLOW_QUEUE_URL,
    concurrency = WEBHOOK_MAX_CONCURRENCY,
    slowConcurrency = WEBHOOK_SLOW_MAX_CONCURRENCY,
  } = options;
  if (!queueUrl) throw new Error('WEBHOOK_QUEUE_URL is not set');
  if (!slowQueueUrl) throw new Error('WEBHOOK_SLOW_QUEUE_URL is not set');
  const pollers = await Promise.all([startPoller(queueUrl, concurrency), startPoller(slowQueueUrl, slowConcurrency)]);
  return { stop: async () => void (await Promise.all(pollers.map((poller) => poller.stop()))) };
}
