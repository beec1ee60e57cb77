import { newId } from '#shared/ids.ts';
import { getAccount, putAccount, type AccountRecord } from '#shared/data/accounts.ts';
import { getEmailsSent } from '#shared/data/usage.ts';
import { PLAN_LIMITS, type Plan } from '#shared/model/plans.ts';

export async function createAccount(input: { plan: Plan; quota?: number; name?: string }, now = new Date()): Promise<{ accountId: string }> {
  const accountId = newId('acc', now.getTime());
  await putAccount({
    accountId,
    name: input.name ?? accountId,
    plan: input.plan,
    ...(input.quota === undefined ? {} : { quotaOverride: input.quota }),
    createdAt: now.toISOString(),
  });
  return { accountId };
}

/** The calendar month (UTC) that the quota counts in: `2026-11`. */
export function quotaPeriod(now: Date): string {
  return now.toISOString().slice(0, 7);
}

/** The account's monthly email quota: the operator's override, else the plan's. */
export function monthlyQuotaOf(account: Pick<AccountRecord, 'plan' | 'quotaOverride'>): number {
  return account.quotaOverride ?? PLAN_LIMITS[account.plan].monthlyEmailQuota;
}

export interface AccountSummary {
  accountId: string;
  plan: Plan;
  quota: number;
  emailsSent: number;
  emailsRemaining: number;
  period: string;
}

export async function showAccount(accountId: string, now = new Date()): Promise<AccountSummary | undefined> {
  const account = await getAccount(accountId);
  if (!account) return undefined;
  const period = quotaPeriod(now);
  const quota = monthlyQuotaOf(account);
  const emailsSent = await getEmailsSent(accountId, period);
  return { accountId, plan: account.plan, quota, emailsSent, emailsRemaining: Math.max(0, quota - emailsSent), period };
}
