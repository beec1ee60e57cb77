/**
 * The monthly email quota (calendar month, UTC): one email is charged per
 * message to an address in `recipients`, reserved before the message goes to
 * SES and given back if SES does not take it, so nothing is charged unsent.
 */
import { getAccount, type AccountRecord } from '#shared/data/accounts.ts';
import { getEmailsSent, releaseEmails, reserveEmails } from '#shared/data/usage.ts';
import { PostlaneError } from '#shared/errors.ts';
import { monthlyQuotaOf, quotaPeriod } from './accounts.ts';

export interface QuotaMonth {
  accountId: string;
  quota: number;
  /** `2026-11`: the month a reservation was made in is the month it is released in, even across midnight. */
  period: string;
}

export class QuotaExceededError extends PostlaneError {
  override readonly name = 'QuotaExceededError';
  constructor(quota: number, emailsSent: number, wanted: number) {
    const remaining = Math.max(0, quota - emailsSent);
    super(
      'QUOTA_EXCEEDED',
      remaining === 0
        ? `The monthly email quota of ${quota} is used up`
        : `This send needs ${wanted} emails but ${remaining} of the monthly quota of ${quota} remain`,
    );
  }
}

export async function quotaMonth(accountId: string, now: Date): Promise<QuotaMonth> {
  const account = await getAccount(accountId);
  if (!account) throw new Error(`Account ${accountId} vanished during a request`);
  return quotaMonthOf(account, now);
}

/** The month's quota of an account already read (the broadcast engine reads it for its send rate too). */
export function quotaMonthOf(account: Pick<AccountRecord, 'accountId' | 'plan' | 'quotaOverride'>, now: Date): QuotaMonth {
  return { accountId: account.accountId, quota: monthlyQuotaOf(account), period: quotaPeriod(now) };
}

/** The month's quota for a caller: a key's copy of it when it has one (no read), else the account's. */
export function quotaMonthFor(principal: { accountId: string; monthlyQuota?: number | undefined }, now: Date): Promise<QuotaMonth> {
  if (principal.monthlyQuota === undefined) return quotaMonth(principal.accountId, now);
  return Promise.resolve({ accountId: principal.accountId, quota: principal.monthlyQuota, period: quotaPeriod(now) });
}

export function remaining(month: QuotaMonth, emailsSent: number): number {
  return Math.max(0, month.quota - emailsSent);
}

/** Charges `count` emails, all or none; throws QuotaExceededError when they do not fit. Returns the emails left. */
export async function reserveQuota(month: QuotaMonth, count: number): Promise<number> {
  const outcome = await reserveEmails(month.accountId, month.period, count, month.quota);
  if (!outcome.reserved) throw new QuotaExceededError(month.quota, outcome.emailsSent, count);
  return remaining(month, outcome.emailsSent);
}

/** Gives back `count` reserved emails whose messages were not sent. Returns the emails left. */
export async function releaseQuota(month: QuotaMonth, count: number): Promise<number> {
  return remaining(month, await releaseEmails(month.accountId, month.period, count));
}

/** The emails left this month, without charging any (test keys, sends that charge nothing). */
export async function quotaLeft(month: QuotaMonth): Promise<number> {
  return remaining(month, await getEmailsSent(month.accountId, month.period));
}
