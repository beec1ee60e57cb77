/**
 * The retry queue's limits and backoff, shared by the code that uses the
 * queue, the CDK construct that makes it and the local stand-in; no
 * configuration here, so the stack and `npm start` can load it before any.
 */

/**
 * SQS's largest message (1 MiB, the SDK's documented limit since 2025; it
 * was 256 KiB before). The stack sets the queue's MaximumMessageSize to it
 * explicitly, and WORKER_BATCH_SIZE keeps a batch under Lambda's 6 MB
 * invocation payload.
 */
export const MAX_QUEUED_MESSAGE_BYTES = 1024 * 1024;

/**
 * Where, in the region's attachments bucket, a throttled message too large
 * for one SQS message is kept while the queue carries a pointer to it. The
 * bucket's lifecycle removes it once neither the queue nor its dead-letter
 * queue can hold the pointer any more (lib/attachments-bucket.ts).
 */
export const QUEUED_MESSAGES_PREFIX = 'queued/';

/**
 * Receives of one message before SQS moves it to the dead-letter queue (the
 * queue's maxReceiveCount). The worker's last attempt is this one: it marks
 * the record failed and refunds the quota, then SQS moves the message.
 */
export const MAX_RECEIVES = 5;

/** Messages per worker invocation (the event source's batch size): 5 of at most 1 MiB fit Lambda's 6 MB payload. */
export const WORKER_BATCH_SIZE = 5;

/**
 * Most retry workers Lambda runs at once (the event source's maximum
 * concurrency; docs/operations.md, "Concurrency"). SES's sending rate is what
 * holds throttled messages back, so more workers would only meet the same
 * throttle, while taking concurrency the API's functions need.
 */
export const RETRY_MAX_CONCURRENCY = 5;

/** SQS's longest DelaySeconds; also the longest wait between attempts. */
export const MAX_DELAY_SECONDS = 900;

/**
 * Seconds to wait after `attempts` failed tries (the request's own try
 * counts as the first): the base, doubling per attempt, capped at 15 minutes.
 * With the default base of 10 s: 10, 20, 40, 80, 160 (about 5 minutes).
 */
export function backoffSeconds(attempts: number, base: number): number {
  return Math.min(MAX_DELAY_SECONDS, base * 2 ** Math.max(0, attempts - 1));
}
