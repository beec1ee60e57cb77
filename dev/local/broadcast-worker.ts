/**
 * The broadcast worker locally: the handler the stack deploys, fed by the
 * queue poller as the SQS event source feeds it in AWS. Imports
 * shared/platform/config.ts, so load it only once the environment names the local endpoints.
 */
import { handler } from '#functions/broadcasts/work.ts';
import { config } from '#shared/platform/config.ts';
import { sqs } from '#shared/sending/retry-queue.ts';
import { BROADCAST_MAX_CONCURRENCY, BROADCAST_WORKER_BATCH_SIZE } from '#shared/broadcasts/policy.ts';
import { startQueuePoller, type QueuePoller } from './queue-poller.ts';

/**
 * Up to `concurrency` batches at once on the one queue (the stack's
 * BROADCAST_MAX_CONCURRENCY unless given), as Lambda runs several workers on
 * one event source; `wrap` lets the benchmark time each invocation.
 */
export function startBroadcastWorker(
  options: { queueUrl?: string; concurrency?: number; wrap?: (worker: typeof handler) => typeof handler } = {},
): Promise<QueuePoller> {
  const queueUrl = options.queueUrl ?? config.BROADCAST_QUEUE_URL;
  if (!queueUrl) throw new Error('BROADCAST_QUEUE_URL is not set');
  return startQueuePoller({
    client: sqs,
    queueUrl,
    name: 'broadcasts/work',
    handler: options.wrap?.(handler) ?? handler,
    batchSize: BROADCAST_WORKER_BATCH_SIZE,
    maxConcurrency: options.concurrency ?? BROADCAST_MAX_CONCURRENCY,
    region: config.AWS_REGION,
  });
}
