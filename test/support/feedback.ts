/**
 * SES events handed to the feedback worker as the feedback queue's event
 * source hands them (lib/feedback.ts): one SQS record each, its body the
 * EventBridge event the rule put on the queue. The worker runs as Lambda runs
 * it, its AWS calls checked against its role (test/support/aws-calls.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { invokedAs } from '#dev/local/invocation.ts';
import { sqsEvent } from '#dev/local/queue-poller.ts';
import { handler } from '#functions/feedback/ses-events.ts';

const worker = invokedAs('feedback/ses-events', handler);

/** The event source's batch of these events, in order. */
export function feedbackBatch(...events: unknown[]): SQSEvent {
  const messages = events.map((event) => ({ MessageId: randomUUID(), ReceiptHandle: randomUUID(), Body: JSON.stringify(event) }));
  return sqsEvent(messages, 'arn:aws:sqs:us-east-1:000000000000:postlane-feedback', 'us-east-1');
}

/** The worker's answer to a batch of these events: the ones it lists are received again. */
export function feedbackWorker(batch: SQSEvent, context?: Pick<Context, 'awsRequestId'>): Promise<SQSBatchResponse> {
  return worker(batch, context);
}

/** Applies the events in one batch; rejects when the worker lists any as failed, as the queue would hand it again. */
export async function deliverFeedback(...events: unknown[]): Promise<void> {
  const { batchItemFailures } = await worker(feedbackBatch(...events));
  if (batchItemFailures.length > 0) throw new Error(`the feedback worker failed ${batchItemFailures.length} of ${events.length} events`);
}
