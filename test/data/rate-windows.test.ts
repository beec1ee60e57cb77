/**
 * The per-second window against DynamoDB Local when instances' clocks (or
 * their reads of the clock) disagree: a request that arrives after another
 * instance opened the next second's window is counted there, and its
 * X-RateLimit-Reset names that window, not the one its own clock read.
 */
import { describe, expect, it } from 'vitest';
import { admitRequest } from '#shared/accounts/rate-limit.ts';
import type { KeyPrincipal } from '#shared/accounts/api-keys.ts';
import { PLAN_LIMITS } from '#shared/accounts/plans.ts';
import { createTestAccount } from '../support/accounts.ts';

async function freePrincipal(): Promise<KeyPrincipal> {
  const { accountId, keyId } = await createTestAccount({ plan: 'free' });
  return { accountId, keyId, env: 'live', permission: 'full', plan: 'free' };
}

describe('the per-second window', () => {
  const second = 1_795_000_000;
  const at = (epochSecond: number, ms = 0) => new Date(epochSecond * 1000 + ms);

  it('reports the window that counted a request, when a later one was already open', async () => {
    const principal = await freePrincipal();
    await admitRequest(principal, at(second + 1, 10));

    const late = await admitRequest(principal, at(second, 990));

    expect(late).toEqual({ limit: PLAN_LIMITS.free.requestsPerSecond, remaining: PLAN_LIMITS.free.requestsPerSecond - 2, reset: second + 2 });
  });

  it('refuses in that later window once it is full, naming its reset', async () => {
    const principal = await freePrincipal();
    const limit = PLAN_LIMITS.free.requestsPerSecond;
    for (let i = 0; i < limit; i++) await admitRequest(principal, at(second + 1, 10));

    await expect(admitRequest(principal, at(second, 990))).rejects.toMatchObject({ details: { retryAfter: 2 }, window: { remaining: 0, reset: second + 2 } });
  });
});
