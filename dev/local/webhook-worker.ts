/**
 * The webhook worker locally: the handler the stack deploys, fed by the
 * queue poller as the SQS event source feeds it in AWS. Imports
 * shared/config.ts, so load it only once the environment names the local
 * endpoints (WEBHOOK_QUEUE_URL: a queue made with `createRetryQueues`, as the
 * stack makes `<prefix>-webhooks` with its dead-letter queue).
 */
import { handler } from '#functions/webhooks/deliver.ts';
import { config } from '#shared/config.ts';
import { sqs } from '#shared/email/retry-queue.ts';
import { WEBHOOK_BATCH_SIZE } from '#shared/webhooks/schedule.ts';
import { startQueuePoller, type QueuePoller } from './queue-poller.ts';

/**
 * Batches in flight at once: Lambda polls an SQS queue with five concurrent
 * batches at least, so a batch held by a slow receiver leaves the others going.
 */
export const LOCAL_WEBHOOK_CONCURRENCY = 5;

export async function startWebhookWorker(
  queueUrl: string | undefined = config.WEBHOOK_QUEUE_URL,
  concurrency = LOCAL_WEBHOOK_CONCURRENCY,
): Promise<QueuePoller> {
  if (!queueUrl) throw new Error('WEBHOOK_QUEUE_URL is not set');
  const pollers = await Promise.all(
    Array.from({ length: concurrency }, () =>
      startQueuePoller({ client: sqs, queueUrl, name: 'webhooks/deliver', handler, batchSize: WEBHOOK_BATCH_SIZE, region: config.AWS_REGION }),
    ),
  );
  return { stop: async () => void (await Promise.all(pollers.map((poller) => poller.stop()))) };
}
