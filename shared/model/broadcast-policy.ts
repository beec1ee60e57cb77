/**
 * The broadcast queue's policy, shared by the stack (lib/broadcasts.ts), the
 * local stand-ins and the engine.
 */

/** Receives of one step before it moves to the dead-letter queue: a batch held by a live claim comes back a few times at most. */
export const BROADCAST_MAX_RECEIVES = 10;
/** Steps per worker invocation: a batch step sends up to 50 messages, so one at a time keeps an invocation well within its timeout. */
export const BROADCAST_WORKER_BATCH_SIZE = 1;
