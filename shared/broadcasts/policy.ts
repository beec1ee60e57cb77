/**
 * The broadcast queue's policy, shared by the stack (lib/broadcasts.ts), the
 * local stand-ins and the engine.
 */

/** Receives of one step before it moves to the dead-letter queue: a batch held by a live claim comes back a few times at most. */
export const BROADCAST_MAX_RECEIVES = 10;
/** Steps per worker invocation: a batch step sends up to 50 messages, so one at a time keeps an invocation well within its timeout. */
export const BROADCAST_WORKER_BATCH_SIZE = 1;
/**
 * Most broadcast workers Lambda runs at once. Pacing already keeps the sum of
 * their sending at SES's rate, so more workers than that rate needs only defer
 * batches back to the queue, each deferral a paid invocation and SQS request;
 * and all of them draw on the region's Lambda concurrency, which the API's
 * functions share. One worker sends on the order of 100 messages a second (groups
 * of 10 in parallel), so 10 keep SES's higher production rates busy.
 */
export const BROADCAST_MAX_CONCURRENCY = 10;

/**
 * How long EventBridge Scheduler keeps trying to put a scheduled broadcast's
 * start step on the broadcast queue before it writes the step to the
 * schedules' dead-letter queue (its default: up to 185 retries within 24
 * hours). SQS's own hiccups (throttling, a 5xx) pass within minutes;
 * what still fails after an hour (the role's grant or the queue broken) needs
 * an operator, and whether a broadcast goes out hours late is theirs to
 * decide (`admin broadcasts replay`), not a retry's. Errors Scheduler does not
 * retry (access denied, no such queue) go to the dead letters at once.
 */
export const BROADCAST_SCHEDULE_RETRY = { MaximumEventAgeInSeconds: 3_600, MaximumRetryAttempts: 185 } as const;
