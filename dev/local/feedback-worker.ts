/**
 * The SES feedback path locally, as the stack builds it (lib/feedback.ts):
 * what the rule does with an SES event (puts it, whole, on the feedback
 * queue, or on the dead-letter queue when the queue refuses it), and the
 * worker the queue's event source feeds. A failed event comes back after the
 * queue's visibility timeout and, after FEEDBACK_MAX_RECEIVES receives, the
 * stand-in's redrive policy moves it to the dead-letter queue, where
 * `admin feedback replay` finds it, as in AWS. Imports shared/platform/config.ts, so
 * load it only once the environment names the local endpoints.
 */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { handler } from '#functions/feedback/ses-events.ts';
import { config } from '#shared/platform/config.ts';
import { sqs } from '#shared/sending/retry-queue.ts';
import { FEEDBACK_BATCH_SIZE, FEEDBACK_MAX_CONCURRENCY, FEEDBACK_MAX_RECEIVES } from '#shared/feedback/policy.ts';
import { log } from '#shared/platform/log.ts';
import { startQueuePoller, type QueuePoller } from './queue-poller.ts';
import { createRetryQueues } from './sqs.ts';

export interface FeedbackQueues {
  queueUrl: string;
  deadLetterQueueUrl: string;
}

/**
 * `<name>` and `<name>-dlq` on the SQS stand-in at `endpoint`, with the stack's
 * redrive policy; `visibilityTimeoutSeconds` as createRetryQueues takes it.
 */
export function createFeedbackQueues(endpoint: string, name: string, options: { visibilityTimeoutSeconds?: number } = {}): Promise<FeedbackQueues> {
  return createRetryQueues(endpoint, name, FEEDBACK_MAX_RECEIVES, options);
}

/**
 * What the rule's SQS target does with one event: the event as the body; when
 * the queue refuses it, the dead-letter queue (EventBridge gives up only after
 * a day of retries; locally at once).
 */
export async function publishSesEvent(queues: FeedbackQueues, event: object): Promise<void> {
  const body = JSON.stringify(event);
  try {
    await sqs.send(new SendMessageCommand({ QueueUrl: queues.queueUrl, MessageBody: body }));
  } catch (error) {
    log.error('local feedback rule: the queue refused an event; dead-lettered', { error });
    await sqs.send(new SendMessageCommand({ QueueUrl: queues.deadLetterQueueUrl, MessageBody: body }));
  }
}

/** The feedback worker on `queueUrl`, at most `maxConcurrency` batches at once (the stack's FEEDBACK_MAX_CONCURRENCY unless given). */
export function startFeedbackWorker(queueUrl: string, maxConcurrency = FEEDBACK_MAX_CONCURRENCY): Promise<QueuePoller> {
  return startQueuePoller({
    client: sqs,
    queueUrl,
    name: 'feedback/ses-events',
    handler,
    batchSize: FEEDBACK_BATCH_SIZE,
    maxConcurrency,
    region: config.AWS_REGION,
  });
}
