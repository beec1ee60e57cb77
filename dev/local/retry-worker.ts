/**
 * The retry worker locally: the handler the stack deploys, fed by the queue
 * poller as the SQS event source feeds it in AWS. Imports shared/platform/config.ts,
 * so load it only once the environment names the local endpoints.
 */
import { handler } from '#functions/email/send-queued.ts';
import { config } from '#shared/platform/config.ts';
import { sqs } from '#shared/sending/retry-queue.ts';
import { RETRY_MAX_CONCURRENCY, WORKER_BATCH_SIZE } from '#shared/sending/retry-policy.ts';
import { startQueuePoller, type QueuePoller } from './queue-poller.ts';

export function startRetryWorker(queueUrl: string | undefined = config.RETRY_QUEUE_URL): Promise<QueuePoller> {
  if (!queueUrl) throw new Error('RETRY_QUEUE_URL is not set');
  return startQueuePoller({
    client: sqs,
    queueUrl,
    name: 'email/send-queued',
    handler,
    batchSize: WORKER_BATCH_SIZE,
    maxConcurrency: RETRY_MAX_CONCURRENCY,
    region: config.AWS_REGION,
  });
}
