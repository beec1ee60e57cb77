/**
 * Admission against fixed-window counters (shared/platform/dynamodb/rate-windows.ts
 * `consumeWindow`): each subject's window in turn, the first one full
 * refusing with RATE_LIMIT_EXCEEDED and `retryAfter`, the seconds until it
 * (or the UTC day, for a daily limit) ends.
 */
import { consumeWindow, type CounterLimits, type WindowSubject } from './rate-windows.ts';
import { RateLimitError } from '#shared/platform/errors.ts';

/** A subject, its limits, and what a refusal says before "try again in N s". */
export type CountedWindow = readonly [subject: WindowSubject, limits: CounterLimits, reason: string];

function secondsLeft(now: Date, limits: CounterLimits, exhausted: 'window' | 'day'): number {
  const nowSeconds = now.getTime() / 1000;
  if (exhausted === 'day') {
    const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1) / 1000;
    return Math.max(1, Math.ceil(midnight - nowSeconds));
  }
  return Math.max(1, Math.ceil(limits.windowSeconds - (nowSeconds % limits.windowSeconds)));
}

/** Counts one event against each window, in order; RATE_LIMIT_EXCEEDED with `retryAfter` at the first that is full. */
export async function admitCounted(windows: readonly CountedWindow[], now: Date): Promise<void> {
  for (const [subject, limits, reason] of windows) {
    const outcome = await consumeWindow(subject, now, limits);
    if (!outcome.admitted) {
      const retryAfter = secondsLeft(now, limits, outcome.exhausted);
      throw new RateLimitError(`${reason}; try again in ${retryAfter} s`, retryAfter);
    }
  }
}
