import { countIf, inRounds, NEXT_ROUND } from './conditional-counter.ts';
import { accountScoped } from './partition.ts';

/**
 * Fixed-window counters for whatever must be rate limited: a public form's
 * submissions, one submitter's address (an API key's requests are counted on
 * the key item itself, shared/accounts/api-key-store.ts `useApiKey`). One item per
 * subject and UTC day holds the current window's count and the day's count, so
 * admitting a request costs a single conditional write (./conditional-counter.ts):
 * the condition is the limit, so no Lambda instance can admit past it.
 *
 * `sec` holds the current window's number (epoch seconds divided by the window
 * length; for one-second windows, the epoch second) and `secCount` its count.
 */
const windowKey = (subject: WindowSubject, day: string) => ({ pk: accountScoped(subject.accountId, 'RATE', ...subject.parts, day), sk: 'RATE' });

const WINDOW_NAMES = { '#sec': 'sec' };

/** Whose events a window counts. */
export interface WindowSubject {
  accountId: string;
  /** Distinct per subject within the account. */
  parts: string[];
}

export interface CounterLimits {
  /** Length of the short window in seconds (1 for the per-second API limit). */
  windowSeconds: number;
  perWindow: number;
  perDay: number | null;
}

/**
 * `window` is the window the event was counted (or refused) in: usually the
 * one of `now`, a later one when another instance had already opened it.
 */
export type CounterOutcome = { admitted: true; windowCount: number; window: number } | { admitted: false; exhausted: 'window' | 'day'; window: number };

/** Counts one event in the subject's window, or reports which limit it would break. */
export async function consumeWindow(subject: WindowSubject, now: Date, limits: CounterLimits): Promise<CounterOutcome> {
  const epochSecond = Math.floor(now.getTime() / 1000);
  let window = Math.floor(epochSecond / limits.windowSeconds);
  const key = windowKey(subject, now.toISOString().slice(0, 10));
  const values = () => ({
    ':one': 1,
    ':zero': 0,
    ':window': window,
    ':windowLimit': limits.perWindow,
    ':dayLimit': limits.perDay,
    ':expiresAt': epochSecond + 2 * 86_400,
  });
  const underDayLimit = limits.perDay === null ? undefined : 'dayCount < :dayLimit';

  // Two racing "first event of a new window" writes make one loser retry the increment; a few rounds are ample for any interleaving of two steps.
  return inRounds<CounterOutcome>(
    async () => {
      const counted = await countIf({
        key,
        update: 'SET secCount = secCount + :one, dayCount = dayCount + :one',
        limit: { sameWindow: '#sec = :window', perWindow: 'secCount < :windowLimit', perDay: underDayLimit },
        names: WINDOW_NAMES,
        values: values(),
      });
      if (counted.admitted) return { admitted: true, windowCount: Number(counted.item.secCount), window };
      const dayCount = Number(counted.old?.dayCount ?? 0);
      if (limits.perDay !== null && dayCount >= limits.perDay) return { admitted: false, exhausted: 'day', window };
      const storedWindow = Number(counted.old?.sec);
      if (storedWindow === window) return { admitted: false, exhausted: 'window', window };
      if (storedWindow > window) {
        // Another instance (a later request, or a clock a little ahead) already opened a newer window: count in it.
        window = storedWindow;
        return NEXT_ROUND;
      }
      const opened = await countIf({
        key,
        update: 'SET #sec = :window, secCount = :one, dayCount = if_not_exists(dayCount, :zero) + :one, expiresAt = :expiresAt',
        limit: { newerWindow: 'attribute_not_exists(#sec) OR #sec < :window', perDay: underDayLimit && `attribute_not_exists(dayCount) OR ${underDayLimit}` },
        names: WINDOW_NAMES,
        values: values(),
        returning: 'NONE',
      });
      return opened.admitted ? { admitted: true, windowCount: 1, window } : NEXT_ROUND;
    },
    { rounds: 4, exhausted: () => ({ admitted: false, exhausted: 'window', window }) },
  );
}
