/**
 * The monthly email quota (calendar month, UTC): one email is charged per
 * message to an address in `recipients`, reserved before the message goes to
 * SES and given back if SES does not take it, so nothing is charged unsent.
 */
import { getAccount, type AccountRecord } from '#shared/accounts/service.ts';
import { getEmailsSent, releaseEmails, reserveEmails } from '#shared/accounts/service.ts';
import { PostlaneError } from '#shared/platform/errors.ts';
import { inRounds, NEXT_ROUND } from '#shared/platform/dynamodb/conditional-counter.ts';
import { monthlyQuotaOf, quotaPeriod } from '#shared/accounts/service.ts';

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

/** Attempts of `reserveEach` after the first: another send charging between a refusal and the retry is rare, twice in a row rarer. */
const FIT_ATTEMPTS = 3;

/**
 * Charges several sends at once, each all or none, in one conditional write
 * when they all fit. When they do not, those that fit in what is left are
 * charged, in order (a later, smaller send may still fit), and each of the
 * others is refused with its QuotaExceededError, as it would be alone.
 * Returns the refusals by position (undefined: charged) and the emails left.
 *
 * `const { refused } = await reserveEach(month, [1, 3, 1])`
 */
export async function reserveEach(month: QuotaMonth, counts: readonly number[]): Promise<{ refused: (QuotaExceededError | undefined)[]; left: number }> {
  let refused: (QuotaExceededError | undefined)[] = counts.map(() => undefined);
  let wanted = counts.reduce((sum, count) => sum + count, 0);
  for (let attempt = 0; ; attempt++) {
    const outcome = await reserveEmails(month.accountId, month.period, wanted, month.quota);
    if (outcome.reserved) return { refused, left: remaining(month, outcome.emailsSent) };
    let left = attempt < FIT_ATTEMPTS ? remaining(month, outcome.emailsSent) : 0;
    refused = counts.map((count) => {
      if (count <= left) {
        left -= count;
        return undefined;
      }
      return new QuotaExceededError(month.quota, month.quota - left, count);
    });
    wanted = counts.reduce((sum, count, index) => (refused[index] ? sum : sum + count), 0);
    if (wanted === 0) return { refused, left: remaining(month, outcome.emailsSent) };
  }
}

/**
 * Charges as many of `count` emails as the month has left, to the last one:
 * how many were charged (0 when it is used up). One conditional write when
 * they all fit; when they do not, the refusal says what is left and that much
 * is asked for, again only while another send keeps taking it first.
 *
 * `const charged = await reserveUpTo(month, 50)`
 */
export async function reserveUpTo(month: QuotaMonth, count: number): Promise<number> {
  let wanted = count;
  return inRounds(
    async () => {
      if (wanted <= 0) return 0;
      const outcome = await reserveEmails(month.accountId, month.period, wanted, month.quota);
      if (outcome.reserved) return wanted;
      wanted = Math.min(wanted, remaining(month, outcome.emailsSent));
      return NEXT_ROUND;
    },
    { rounds: FIT_ATTEMPTS + 1, exhausted: () => 0 },
  );
}

/** Gives back `count` reserved emails whose messages were not sent. Returns the emails left. */
export async function releaseQuota(month: QuotaMonth, count: number): Promise<number> {
  return remaining(month, await releaseEmails(month.accountId, month.period, count));
}

/** The emails left this month, without charging any (test keys, sends that charge nothing). */
export async function quotaLeft(month: QuotaMonth): Promise<number> {
  return remaining(month, await getEmailsSent(month.accountId, month.period));
}
