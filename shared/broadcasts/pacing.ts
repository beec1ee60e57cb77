/**
 * Pacing of broadcast sending (docs/broadcasts.md, "Pacing"): before a batch
 * goes to SES, the worker reserves a window of time in the SES account's
 * bucket (SES's maximum send rate in the region, less the headroom left to
 * interactive sends) and, when the account has a send rate, in the account's
 * bucket; both in parallel, one conditional UpdateItem each
 * (shared/broadcasts/send-rate-store.ts). The batch's messages then go out spread over
 * the window, each no earlier than its slot in every bucket, so the sum of
 * all workers never passes either rate. A window that opens later than the
 * invocation waits for goes back on the queue with the batch's step, delayed
 * until just before it opens, so the batch reserves once; a bucket booked
 * beyond RESERVE_AHEAD_MS reserves nothing and the batch comes back later.
 * Pacing never fails a message.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { config } from '#shared/platform/config.ts';
import type { AccountRecord } from '#shared/accounts/service.ts';
import { accountRateKey, reserveBucketTime, returnBucketTime, sesRateKey, type BucketKey } from './send-rate-store.ts';
import type { BroadcastStep } from './queue.ts';
import { sesMaxSendRate } from '#shared/sending/ses-send-quota.ts';
import type { MailTransport, SendOutcome } from '#shared/sending/transport.ts';
import { backoffSeconds } from '#shared/sending/retry-policy.ts';

/**
 * How far ahead a batch may reserve. Every batch queued at once reserves on
 * its first delivery and waits on the queue for its window, instead of
 * coming back every second to try again (1,246 to 1,830 invocations for 60
 * batches at 40 a second when it was one second). Bounded because time reserved is held even when
 * it goes unused (a cancelled or paused broadcast) and because a broadcast
 * started later queues behind it: another account's broadcast waits at most
 * this long for its first window. Well within SQS's 15-minute delay.
 */
export const RESERVE_AHEAD_MS = 120_000;
/**
 * Longest a worker waits, inside its invocation, for its window to open; a
 * later window goes back on the queue with the step. SQS delays in whole
 * seconds, so a carried step arrives up to a second and a half early
 * (ARRIVE_EARLY_MS and the rounding down): this covers it.
 */
export const MAX_WAIT_MS = 2_000;
/** A carried step is due this long before its window: the event source's delivery and the batch's reads fit in it. */
const ARRIVE_EARLY_MS = 500;
/**
 * A carried window the step came back for later than this is given up and
 * the batch reserves anew: its messages sent now would overlap the windows
 * after it by more than SES's burst of about a second absorbs.
 */
export const MAX_LATE_MS = 1_000;
/** Longest window one reservation covers: the invocation sends it well within the function's 28 s. */
export const MAX_WINDOW_MS = 10_000;

type BatchStep = Extract<BroadcastStep, { kind: 'batch' }>;
/** A reserved window as a step carries it. */
export type ReservedWindow = NonNullable<BatchStep['window']>;

/**
 * Which SES account the region's bucket stands for. In AWS, SES's quota is
 * per account and region, and a deployment has one account: the region.
 * Locally each SES endpoint is an account of its own.
 */
export function sesRateScope(): string {
  return config.SES_ENDPOINT ? `${config.AWS_REGION} ${config.SES_ENDPOINT}` : config.AWS_REGION;
}

/** Messages per second broadcasts of this region may send in all: SES's rate less the interactive sends' headroom. */
export async function broadcastSesRate(now = Date.now()): Promise<number> {
  return (await sesMaxSendRate(now)) * (1 - config.SES_RATE_HEADROOM);
}

interface Bucket {
  key: BucketKey;
  /** Messages per second. */
  rate: number;
}

/** When a window's first message may leave: the latest of its buckets' starts. */
const windowStart = (window: ReservedWindow) => Math.max(...window.spans.map(([start]) => start));

/**
 * A reserved window: the earliest time each message may leave at, in order.
 * A message also leaves at least one interval (at the slowest rate) after the
 * one before it: messages whose slots passed while the batch was still
 * rendering and claiming do not leave in a burst to catch up.
 */
export class SendSchedule {
  private taken = 0;
  private last = Number.NEGATIVE_INFINITY;
  private readonly intervalMs: number;
  /** SES throttled a message of this window and its retry: the batch backs off instead of only waiting for its next window. */
  sesThrottled = false;
  /** When the window opens, and when it closes (every bucket has paid for its messages). */
  readonly start: number;
  readonly end: number;

  constructor(readonly window: ReservedWindow) {
    const { count, spans } = window;
    this.start = windowStart(window);
    this.end = Math.max(...spans.map(([, end]) => end));
    this.intervalMs = Math.max(...spans.map(([start, end]) => (end - start) / count));
  }

  /** Waits for the next message's time; false when the window has no slot left (the rest of the batch comes back later). */
  async take(): Promise<boolean> {
    const index = this.taken++;
    if (index >= this.window.count) return false;
    const slot = Math.max(...this.window.spans.map(([start, end]) => start + (index * (end - start)) / this.window.count));
    // Decided before waiting, so concurrent senders queue up one interval apart.
    return this.waitFor(Math.max(slot, this.last + this.intervalMs, Date.now()));
  }

  /**
   * Waits for the next free slot after SES throttled a message: one interval
   * after the slots handed out so far (SES takes one more message an interval
   * later), and at least one after now. The throttled message did not use its
   * slot, so its retry stays within what was reserved. False when that is
   * more than MAX_WAIT_MS away: the batch comes back instead.
   */
  async retry(): Promise<boolean> {
    const now = Date.now();
    const at = Math.max(this.last, now) + this.intervalMs;
    if (at - now > MAX_WAIT_MS) return false;
    return this.waitFor(at);
  }

  private async waitFor(at: number): Promise<true> {
    this.last = at;
    const wait = at - Date.now();
    if (wait > 0) await sleep(wait);
    return true;
  }

  /** Seconds until a new window can open within the wait an invocation allows. */
  secondsToNextWindow(now = Date.now()): number {
    return Math.max(0, Math.ceil((this.end - MAX_WAIT_MS - now) / 1000));
  }
}

/** What to do with a batch: send it now within `schedule`, or put `step` back on the queue for `delaySeconds`. */
export type BatchPacing = { schedule: SendSchedule } | { requeue: { step: BatchStep; delaySeconds: number } };

/**
 * Paces one of `account`'s batches of `size` recipients. A window the step
 * carries is used when it is not stale; otherwise one is reserved for the
 * messages left (`step.left`, else the whole batch), at most MAX_WINDOW_MS of
 * them at the slowest rate. A window that opens within MAX_WAIT_MS is sent in
 * now; a later one goes back on the queue with the step, due just before it
 * opens. When a bucket is booked more than RESERVE_AHEAD_MS ahead nothing is
 * reserved and the step comes back once half of that backlog is sent: a
 * deferred batch costs an invocation per RESERVE_AHEAD_MS / 2, not per second.
 */
export async function paceBatch(account: Pick<AccountRecord, 'accountId' | 'sendRate'>, step: BatchStep, size: number, now = Date.now()): Promise<BatchPacing> {
  const { window: carried, ...unreserved } = step;
  const fresh = carried && now <= windowStart(carried) + MAX_LATE_MS;
  const window = fresh ? carried : await reserveWindow(account, Math.min(step.left ?? size, size), now);
  if ('retryAt' in window) {
    return { requeue: { step: unreserved, delaySeconds: Math.max(1, Math.ceil((window.retryAt - now) / 1000)) } };
  }
  const schedule = new SendSchedule(window);
  if (schedule.start - now <= MAX_WAIT_MS) return { schedule };
  return { requeue: { step: { ...unreserved, window }, delaySeconds: Math.floor((schedule.start - ARRIVE_EARLY_MS - now) / 1000) } };
}

/**
 * A window for `count` messages in every bucket that binds, or when to ask
 * again (nothing was reserved). It may open up to RESERVE_AHEAD_MS ahead
 * when the region's bucket is the only one; with the account's too, within
 * MAX_WAIT_MS.
 */
async function reserveWindow(
  account: Pick<AccountRecord, 'accountId' | 'sendRate'>,
  count: number,
  now: number,
): Promise<ReservedWindow | { retryAt: number }> {
  const buckets: Bucket[] = [
    { key: sesRateKey(sesRateScope()), rate: await broadcastSesRate(now) },
    ...(account.sendRate ? [{ key: accountRateKey(account.accountId), rate: account.sendRate }] : []),
  ];
  const slowest = Math.min(...buckets.map((bucket) => bucket.rate));
  const messages = Math.max(1, Math.min(count, Math.floor((slowest * MAX_WINDOW_MS) / 1000)));
  // Two buckets' windows must open together: a message leaves at its later slot, so the other bucket's time would be spent where nothing is sent.
  const ahead = buckets.length === 1 ? RESERVE_AHEAD_MS : MAX_WAIT_MS;
  const reservations = await Promise.all(buckets.map((bucket) => reserveBucketTime(bucket.key, (messages * 1000) / bucket.rate, now, ahead)));
  const spans = reservations.flatMap((reservation) => ('end' in reservation ? [[reservation.start, reservation.end] as [number, number]] : []));
  if (spans.length === buckets.length) return { count: messages, spans };
  // One bucket refused: the other's window goes back rather than idling while the batch waits.
  await Promise.all(reservations.map((reservation, index) => ('end' in reservation ? returnBucketTime(buckets[index]!.key, reservation) : undefined)));
  const retryAt = Math.max(...reservations.map((reservation) => ('retryAt' in reservation ? reservation.retryAt : 0)));
  // Back when half of what is booked beyond the reach is sent: deferred batches come back once per half reach, not every second.
  return { retryAt: retryAt + ahead / 2 };
}

/**
 * When to plan the next page, having planned `recipients` now: when what is
 * planned so far is about RESERVE_AHEAD_MS / 2 from being sent at the
 * broadcast's rate (`due`, carried from page to page). A broadcast of 100,000
 * then keeps about a minute of batches on the queue, all of which can reserve
 * their windows, instead of 2,000 batches coming back every minute to find
 * the bucket booked.
 */
export async function nextPageAt(
  account: Pick<AccountRecord, 'sendRate'>,
  due: number | undefined,
  recipients: number,
  now = Date.now(),
): Promise<{ due: number; delaySeconds: number }> {
  const rate = Math.min(await broadcastSesRate(now), account.sendRate ?? Number.POSITIVE_INFINITY);
  const next = Math.max(now, due ?? now) + (recipients * 1000) / rate;
  // The queue rounds the delay up and keeps it within SQS's range (shared/broadcasts/queue.ts).
  return { due: next, delaySeconds: (next - RESERVE_AHEAD_MS / 2 - now) / 1000 };
}

/** What a message beyond the window's slots gets: the engine's throttled path releases its claim and the batch comes back. */
const NO_SLOT: SendOutcome = { status: 'failed', error: 'SES_THROTTLED', message: 'Held back by pacing until the next window' };

const throttledBySes = (outcome: SendOutcome) => outcome.status === 'failed' && outcome.error === 'SES_THROTTLED';

/**
 * The transport as a paced batch uses it: each message waits for its slot. A
 * message SES throttles is sent again at the next free slot, in this
 * invocation, when that is soon; throttled again (or not soon), it is noted
 * on the schedule and the batch backs off on the queue.
 */
export function pacedTransport(transport: MailTransport, schedule: SendSchedule): MailTransport {
  return {
    async send(email) {
      if (!(await schedule.take())) return NO_SLOT;
      let outcome = await transport.send(email);
      if (throttledBySes(outcome) && (await schedule.retry())) outcome = await transport.send(email);
      if (throttledBySes(outcome)) schedule.sesThrottled = true;
      return outcome;
    },
  };
}

/**
 * How a batch with `left` messages unsent comes back: when pacing held them,
 * as soon as its next window can open; when SES throttled, after a delay that
 * doubles with each throttled attempt in a row (the step counts them). Either
 * way it reserves anew, for those `left` only.
 */
export function throttledRetry(step: BatchStep, schedule: SendSchedule | undefined, left: number): { step: BatchStep; delaySeconds: number } {
  const { throttled = 0, window: _used, ...rest } = step;
  if (schedule && !schedule.sesThrottled) return { step: { ...rest, left }, delaySeconds: schedule.secondsToNextWindow() };
  return { step: { ...rest, left, throttled: throttled + 1 }, delaySeconds: backoffSeconds(throttled + 1, config.BROADCAST_THROTTLE_DELAY_SECONDS) };
}
