/**
 * The X-RateLimit-* headers of a counted request, and the refusal that still
 * carries them. What counts a request (an API key's windows) is the accounts
 * area's (shared/accounts/rate-limit.ts); how its window is reported is HTTP's.
 */
import { RateLimitError } from '#shared/platform/errors.ts';

/** What the X-RateLimit-* headers report: the per-second window. */
export interface RateWindow {
  limit: number;
  remaining: number;
  /** Unix seconds when the window resets. */
  reset: number;
}

export class RateLimitExceeded extends RateLimitError {
  constructor(
    message: string,
    retryAfter: number,
    readonly window: RateWindow,
  ) {
    super(message, retryAfter);
  }
}

export function rateHeaders(window: RateWindow | undefined): Record<string, string> {
  return window
    ? {
        'X-RateLimit-Limit': String(window.limit),
        'X-RateLimit-Remaining': String(window.remaining),
        'X-RateLimit-Reset': String(window.reset),
      }
    : {};
}
