/**
 * When a failed delivery is tried again, as the Standard Webhooks
 * specification suggests (and Svix does): 8 attempts over about 28 hours,
 * longer than the 24 hours of failures after which an endpoint is disabled.
 */

/** Seconds after attempt n (index n − 1) fails before attempt n + 1. */
export const RETRY_DELAYS_SECONDS = [5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600] as const;

/** Attempts in all: the first and one per delay. */
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;

/** An endpoint failing for this long with no success is disabled. */
export const DISABLE_AFTER_MS = 24 * 3600 * 1000;

/** Longest wait before a receiver's answer counts as a failure. */
export const DELIVERY_TIMEOUT_MS = 10_000;

/** Seconds to wait after attempt `attempt` failed; undefined when it was the last. */
export function retryDelaySeconds(attempt: number): number | undefined {
  return RETRY_DELAYS_SECONDS[attempt - 1];
}

/**
 * Messages per worker invocation, all delivered at once: ten receivers timing
 * out (10 s each, in parallel) still end well within the function's 28 s.
 */
export const WEBHOOK_BATCH_SIZE = 10;

/**
 * Receives of one message before it moves to the dead-letter queue. A
 * receiver's failures never throw (they are attempts, rescheduled as new
 * messages), so only a failing table or queue reaches this.
 */
export const WEBHOOK_MAX_RECEIVES = 5;

/**
 * A delivery still unanswered this long after the first answer of its batch
 * marks its endpoint slow: its deliveries then go to the slow lane
 * (docs/webhooks.md, "A slow endpoint"). A tenth of DELIVERY_TIMEOUT_MS: a
 * receiver that answers within it costs a worker little; one that hangs is
 * caught long before its timeout.
 */
export const SLOW_DELIVERY_MS = 1_000;

/**
 * A delivery still unanswered this long after it started, while no other of
 * its batch has been answered either, marks its endpoint slow too. Longer than
 * SLOW_DELIVERY_MS: with no answer to compare with, a slow receiver cannot be
 * told from the worker's own lag (a starved CPU, a pause), which delays every
 * attempt of a batch alike. Batches are full when workers are scarce, which is
 * when the lanes matter.
 */
export const SLOW_ALONE_MS = 3 * SLOW_DELIVERY_MS;

/**
 * How long a slow mark lasts (a host's, or a whole account's). It is not
 * extended by each slow delivery nor cleared by a fast one (either would be a
 * write per delivery, and a receiver slow only now and then would flip lanes
 * with each), nor by any change the tenant makes; once it lapses, the next
 * slow delivery marks the host again.
 */
export const SLOW_MARK_MS = 10 * 60 * 1000;

/**
 * How many hosts of one account marked slow at the same time send every
 * delivery of the account to the slow lane (slow-marks.ts): a tenant naming
 * new hosts (its own subdomains, ports) to escape its marks is caught after
 * this many in SLOW_MARK_MS, not given a fresh start with each. Three, not
 * one: an integration with a slow receiver or two keeps its other endpoints'
 * deliveries on the normal lane.
 */
export const ACCOUNT_SLOW_HOSTS = 3;

/**
 * Most workers the slow lane's event source runs at once (each with a batch of
 * WEBHOOK_BATCH_SIZE): every slow endpoint of the region shares these, however
 * many there are, while the normal lane has WEBHOOK_MAX_CONCURRENCY of its own.
 */
export const WEBHOOK_SLOW_MAX_CONCURRENCY = 10;

/**
 * Most workers the normal lane's event source runs at once: 500 deliveries in
 * flight, thousands a second from receivers that answer within a second, while
 * a backlog (events piling up behind an outage of the table) takes no more of
 * the region's concurrency than this (docs/operations.md, "Concurrency").
 */
export const WEBHOOK_MAX_CONCURRENCY = 50;
