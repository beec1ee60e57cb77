/**
 * The SES feedback queue's policy (lib/feedback.ts), shared by the stack and
 * the local stand-ins: the rule puts each SES event on the queue, and its
 * event source hands them to the feedback function.
 */

/**
 * Receives of one event before SQS moves it to the feedback dead-letter queue,
 * where `admin feedback replay` applies it. The queue hides a failed event for
 * six times the function's timeout, so this is about a quarter of an hour of
 * retries: a DynamoDB throttle passes, an outage raises the alarm.
 */
export const FEEDBACK_MAX_RECEIVES = 5;

/** Events per invocation, applied one after the other (events about one message keep their order). */
export const FEEDBACK_BATCH_SIZE = 10;

/**
 * Most feedback functions Lambda runs at once. SES publishes an event or two
 * per message (a delivery; opens and clicks with tracking), and one invocation
 * applies its ten in well under a second, so 20 keep up with more than the
 * sending rate broadcasts can reach; a burst beyond it waits in the queue
 * rather than taking the concurrency the API's functions need
 * (docs/operations.md, "Concurrency").
 */
export const FEEDBACK_MAX_CONCURRENCY = 20;
