import { countIf, inRounds, NEXT_ROUND } from '#shared/platform/dynamodb/conditional-counter.ts';
import { accountScoped } from '#shared/platform/dynamodb/partition.ts';
import { ConflictError } from '#shared/platform/errors.ts';

/**
 * One item per account and recipient holding the times (epoch ms) of its
 * recent OTP sends, at most `limit` of them: a sliding window is then one
 * item's list, and every admission is a conditional write on that item.
 */
const otpWindowKey = (accountId: string, email: string) => ({ pk: accountScoped(accountId, 'OTP', email), sk: 'OTP' });

export type OtpAdmission =
  | { admitted: true }
  /** `recent`: the sends still inside the window, oldest first. */
  | { admitted: false; recent: number[] };

/** Rounds of optimistic retry; only writers racing inside one window's first `limit` sends ever need one. */
const ROUNDS = 12;

/**
 * Records a send at `at` unless `limit` sends already fall within `windowMs`
 * before it. The common case is one write: append while the list is shorter
 * than the limit (stale entries included, so this never admits too many).
 * Once full, the list is pruned to the window and rewritten on the version
 * it was read at, so two racing writers cannot both take the last place.
 */
export async function admitOtpSend(accountId: string, email: string, at: number, windowMs: number, limit: number): Promise<OtpAdmission> {
  const key = otpWindowKey(accountId, email);
  // Kept a little past the window; readers prune by time anyway, as TTL deletes late.
  const expiresAt = Math.ceil((at + windowMs) / 1000) + 60;
  return inRounds<OtpAdmission>(
    async () => {
      const appended = await countIf({
        key,
        update:
          'SET entity = :entity, sends = list_append(if_not_exists(sends, :empty), :at), version = if_not_exists(version, :zero) + :one, expiresAt = :expiresAt',
        limit: { notFull: 'attribute_not_exists(sends) OR size(sends) < :limit' },
        values: { ':entity': 'otpWindow', ':empty': [], ':at': [at], ':zero': 0, ':one': 1, ':expiresAt': expiresAt, ':limit': limit },
        returning: 'NONE',
      });
      if (appended.admitted) return { admitted: true };
      const version = Number(appended.old?.version ?? 0);
      const recent = ((appended.old?.sends ?? []) as number[]).filter((time) => time > at - windowMs).sort((a, b) => a - b);
      if (recent.length >= limit) return { admitted: false, recent };
      const rewritten = await countIf({
        key,
        update: 'SET sends = :sends, version = :next, expiresAt = :expiresAt',
        limit: { readVersion: 'version = :version' },
        values: { ':sends': [...recent, at], ':next': version + 1, ':version': version, ':expiresAt': expiresAt },
        returning: 'NONE',
      });
      return rewritten.admitted ? { admitted: true } : NEXT_ROUND;
    },
    {
      rounds: ROUNDS,
      backoff: true,
      exhausted: () => {
        throw new ConflictError('CONFLICT', 'Too many OTP sends to this recipient at once; retry the request');
      },
    },
  );
}
