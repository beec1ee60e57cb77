import { RateLimitExceeded, type RateWindow } from '#shared/platform/http/rate-headers.ts';
import { useApiKey, type WindowLimits } from './api-key-store.ts';
import { PLAN_LIMITS, PLANS, type Plan } from './plans.ts';
import { consumeWindow } from '#shared/platform/dynamodb/rate-windows.ts';
import type { KeyPrincipal } from './api-keys.ts';

/** `second`: the epoch second whose window counted (or refused) the request. */
export type WindowOutcome = { admitted: true; secondCount: number; second: number } | { admitted: false; exhausted: 'second' | 'day'; second: number };

/** Counts one request in the API key's per-second and per-day windows, kept on the key item (`useApiKey`), or reports which limit it would break. */
export async function consumeRequest(accountId: string, keyId: string, now: Date, limits: WindowLimits): Promise<WindowOutcome> {
  const use = await useApiKey(accountId, keyId, now, Object.fromEntries(PLANS.map((plan) => [plan, limits])));
  if (use.admitted) return { admitted: true, secondCount: use.secondCount, second: use.second };
  if (use.refused === 'guard') throw new Error(`No API key ${keyId} in account ${accountId}`);
  return { admitted: false, exhausted: use.refused, second: use.second };
}

/** The window a counted request reports, or RateLimitExceeded naming the limit it broke (docs/api.md, "Rate limits"). */
export function windowOf(outcome: WindowOutcome, plan: Plan, now: Date, caller: 'API key' | 'session' = 'API key'): RateWindow {
  const limits = PLAN_LIMITS[plan];
  // The window that counted it, which may have opened after `now` was read on this instance.
  const nextSecond = outcome.second + 1;
  if (outcome.admitted) {
    return { limit: limits.requestsPerSecond, remaining: Math.max(0, limits.requestsPerSecond - outcome.secondCount), reset: nextSecond };
  }
  if (outcome.exhausted === 'day') {
    const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1) / 1000;
    const retryAfter = Math.max(1, Math.ceil(midnight - now.getTime() / 1000));
    throw new RateLimitExceeded(`Daily request limit of ${limits.requestsPerDay} reached for this ${caller}`, retryAfter, {
      limit: limits.requestsPerSecond,
      remaining: 0,
      reset: midnight,
    });
  }
  throw new RateLimitExceeded(
    `Rate limit of ${limits.requestsPerSecond} requests per second exceeded`,
    // 1, or 2 when the full window is the one after this instance's clock.
    Math.max(1, Math.ceil(nextSecond - now.getTime() / 1000)),
    { limit: limits.requestsPerSecond, remaining: 0, reset: nextSecond },
  );
}

/**
 * Counts a request against its key's plan limits without checking the key
 * (the request path counts inside `authenticate`); throws RateLimitExceeded past either.
 */
export async function admitRequest(principal: KeyPrincipal, now = new Date()): Promise<RateWindow> {
  const limits = PLAN_LIMITS[principal.plan];
  const outcome = await consumeRequest(principal.accountId, principal.keyId, now, { perSecond: limits.requestsPerSecond, perDay: limits.requestsPerDay });
  return windowOf(outcome, principal.plan, now);
}

/**
 * Counts a session's request in its own window at the account's plan limits
 * (the platform's rate windows, one conditional write), so a person's
 * dashboard shares no window with the account's keys; RateLimitExceeded past either.
 */
export async function admitSessionRequest(accountId: string, sessionId: string, plan: Plan, now: Date): Promise<RateWindow> {
  const limits = PLAN_LIMITS[plan];
  const outcome = await consumeWindow({ accountId, parts: ['SESSION', sessionId] }, now, {
    windowSeconds: 1,
    perWindow: limits.requestsPerSecond,
    perDay: limits.requestsPerDay,
  });
  const counted: WindowOutcome = outcome.admitted
    ? { admitted: true, secondCount: outcome.windowCount, second: outcome.window }
    : { admitted: false, exhausted: outcome.exhausted === 'day' ? 'day' : 'second', second: outcome.window };
  return windowOf(counted, plan, now, 'session');
}
