/**
 * The export worker locally: the handler the stack deploys, fed by the queue
 * poller as the SQS event source feeds it in AWS. Imports
 * shared/platform/config.ts, so load it only once the environment names the local endpoints.
 */
import { handler } from '#functions/audiences/export-work.ts';
import { config } from '#shared/platform/config.ts';
import { sqs } from '#shared/platform/aws/sqs.ts';
import { EXPORT_MAX_CONCURRENCY, EXPORT_WORKER_BATCH_SIZE } from '#shared/contacts/export-policy.ts';
import { startQueuePoller, type QueuePoller } from './queue-poller.ts';

export function startExportWorker(queueUrl: string | undefined = config.EXPORT_QUEUE_URL): Promise<QueuePoller> {
  if (!queueUrl) throw new Error('EXPORT_QUEUE_URL is not set');
  return startQueuePoller({
    client: sqs,
    queueUrl,
    name: 'audiences/export-work',
    handler,
    batchSize: EXPORT_WORKER_BATCH_SIZE,
    maxConcurrency: EXPORT_MAX_CONCURRENCY,
    region: config.AWS_REGION,
  });
}
