import { newId } from '#shared/platform/ids.ts';
import { getAccount, putAccount, setAccountRegion, setAccountSendRate, updateAccountPlan, type AccountRecord } from './store.ts';
import { listApiKeys, setApiKeyPlan } from './api-key-store.ts';
import { assertDeploymentRegion, DEFAULT_HOME_REGION, DEPLOYMENT_REGIONS, localRegion, withHome } from '#shared/platform/dynamodb/regions.ts';
import { config } from '#shared/platform/config.ts';
import { getEmailsSent } from './usage-store.ts';
import { PLAN_LIMITS, type Plan } from './plans.ts';

/** `region`: the home region, one of the deployment's; default its first. */
export async function createAccount(input: { plan: Plan; quota?: number; name?: string; region?: string }, now = new Date()): Promise<{ accountId: string }> {
  const region = input.region ?? DEFAULT_HOME_REGION;
  assertDeploymentRegion(region);
  if (config.REGION_MODE === 'independent' && region !== localRegion()) {
    throw new Error(`In independent-regions mode an account's data lives only in its home region's table: create it there (AWS_REGION=${region})`);
  }
  const accountId = newId('acc', now.getTime());
  await withHome(accountId, region, () =>
    putAccount({
      accountId,
      name: input.name ?? accountId,
      plan: input.plan,
      ...(input.quota === undefined ? {} : { quotaOverride: input.quota }),
      region,
      createdAt: now.toISOString(),
    }),
  );
  return { accountId };
}

/**
 * Makes `region` the account's home (`admin account move`): from the next
 * call on, its writes and guarding reads go to that replica. Written in the
 * new home first (it must succeed: the old region may be the one that is
 * down), then in every other replica that answers, so none keeps routing to
 * the old home until replication brings the change. Writes the old home took
 * but had not yet replicated when it failed are not in the new home: they
 * arrive when the old region comes back, and last writer wins (docs/regions.md).
 */
export async function moveAccount(accountId: string, region: string): Promise<{ accountId: string; region: string } | undefined> {
  assertDeploymentRegion(region);
  if (config.REGION_MODE === 'independent') {
    throw new Error('In independent-regions mode each region has its own table and accounts do not move: their data stays in their home region');
  }
  if (!(await withHome(accountId, region, () => setAccountRegion(accountId, region)))) return undefined;
  await Promise.allSettled(
    DEPLOYMENT_REGIONS.filter((other) => other !== region).map((other) => withHome(accountId, other, () => setAccountRegion(accountId, region))),
  );
  return { accountId, region };
}

/**
 * Sets how many messages per second the account's broadcasts may send in all
 * (`admin account set-send-rate`), or removes the limit with undefined. Workers
 * read it with each batch, so it holds from the next batch on (docs/broadcasts.md, "Pacing").
 */
export async function setSendRate(accountId: string, sendRate: number | undefined): Promise<{ accountId: string; sendRate: number | null } | undefined> {
  if (!(await setAccountSendRate(accountId, sendRate))) return undefined;
  return { accountId, sendRate: sendRate ?? null };
}

/** The calendar month (UTC) that the quota counts in: `2026-11`. */
export function quotaPeriod(now: Date): string {
  return now.toISOString().slice(0, 7);
}

/** When the quota of `now`'s month starts again: the first instant of the next month, UTC. */
export function quotaResetsAt(now: Date): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
}

/** The account's monthly email quota: the operator's override, else the plan's. */
export function monthlyQuotaOf(account: Pick<AccountRecord, 'plan' | 'quotaOverride'>): number {
  return account.quotaOverride ?? PLAN_LIMITS[account.plan].monthlyEmailQuota;
}

export interface AccountSummary {
  accountId: string;
  plan: Plan;
  region: string;
  quota: number;
  emailsSent: number;
  emailsRemaining: number;
  period: string;
}

export async function showAccount(accountId: string, now = new Date()): Promise<AccountSummary | undefined> {
  const account = await getAccount(accountId);
  return account && summaryOf(account, now);
}

async function summaryOf(account: AccountRecord, now: Date): Promise<AccountSummary> {
  const period = quotaPeriod(now);
  const quota = monthlyQuotaOf(account);
  const emailsSent = await getEmailsSent(account.accountId, period);
  return {
    accountId: account.accountId,
    plan: account.plan,
    region: account.region,
    quota,
    emailsSent,
    emailsRemaining: Math.max(0, quota - emailsSent),
    period,
  };
}

/**
 * Changes the account's plan, its quota (`'plan'`: back to the plan's), or
 * both (`admin account update`), and answers as `showAccount` does. The
 * account item is written first, then every key item's copy of plan and quota
 * (found by a query of the account's keys in its home replica), so the new
 * rate limits, OTP window and quota hold from each key's next request, in
 * every region: the key check is a write of the key item in the home replica.
 * A key made meanwhile copies the new plan or is made again (`createApiKey`);
 * a change that fails part way is completed by running it again.
 */
export async function updateAccount(
  accountId: string,
  change: { plan?: Plan; quota?: number | 'plan' },
  now = new Date(),
): Promise<AccountSummary | undefined> {
  const account = await updateAccountPlan(accountId, {
    ...(change.plan === undefined ? {} : { plan: change.plan }),
    ...(change.quota === undefined ? {} : { quotaOverride: change.quota === 'plan' ? null : change.quota }),
  });
  if (!account) return undefined;
  const keys = await listApiKeys(accountId, { consistent: true });
  await Promise.all(keys.map((key) => setApiKeyPlan(accountId, key.keyId, account)));
  return summaryOf(account, now);
}

/** What other areas build on from the stores (their reads, and the parts their transactions write): through this service, never a store itself. */
export { type AccountRecord, getAccount } from './store.ts';

export type { KeyEnvironment } from './api-key-store.ts';
export { membershipsOf, type MemberRecord, type MemberRole, type Membership } from './member-store.ts';
export { emailsSentOf, emailsSentRead, getEmailsSent, releaseEmails, releaseEmailsItem, reserveEmails, usageSortKey } from './usage-store.ts';

/** Who an authenticated request acts as, for audit events: its session's member, or its key (api-keys.ts). */
export { actorOf } from './api-keys.ts';
