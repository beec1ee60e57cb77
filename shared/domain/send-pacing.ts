/**
 * Pacing of broadcast sending (docs/broadcasts.md, "Pacing"): before a batch
 * goes to SES, the worker reserves a window of time in the SES account's
 * bucket (SES's maximum send rate in the region, less the headroom left to
 * interactive sends) and, when the account has a send rate, in the account's
 * bucket; both in parallel, one conditional UpdateItem each
 * (shared/data/send-rates.ts). The batch's messages then go out spread over
 * the window, each no earlier than its slot in every bucket, so the sum of
 * all workers never passes either rate. A window that opens too late for the
 * invocation to wait for puts the batch back on the queue, delayed, without
 * sending anything: pacing never fails a message.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { config } from '#shared/config.ts';
import type { AccountRecord } from '#shared/data/accounts.ts';
import { accountRateKey, reserveBucketTime, returnBucketTime, sesRateKey, type BucketKey } from '#shared/data/send-rates.ts';
import type { BroadcastStep } from '#shared/email/broadcast-queue.ts';
import { sesMaxSendRate } from '#shared/email/send-quota.ts';
import type { MailTransport, SendOutcome } from '#shared/email/transport.ts';
import { backoffSeconds } from '#shared/model/retry-policy.ts';

/**
 * Longest a worker waits, inside its invocation, for its window to open; a
 * later window sends the batch back to the queue (SQS delays in whole
 * seconds). Waiting is paid Lambda time, so it is kept short.
 */
export const MAX_WAIT_MS = 1_000;
/** Longest window one reservation covers: the invocation sends it well within the function's 28 s. */
export const MAX_WINDOW_MS = 10_000;
/** First wait of a batch that SES throttled; each throttled attempt in a row waits twice as long, up to SQS's 15 minutes. */
export const THROTTLE_DELAY_SECONDS = Number(process.env.BROADCAST_THROTTLE_DELAY_SECONDS ?? 5);

type BatchStep = Extract<BroadcastStep, { kind: 'batch' }>;

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

/**
 * A reserved window: the earliest time each message may leave at, in order.
 * A message also leaves at least one interval (at the slowest rate) after the
 * one before it: messages whose slots passed while the batch was still
 * rendering and claiming do not leave in a burst to catch up.
 */
export class SendSchedule {
  private taken = 0;
  private last = Number.NEGATIVE_INFINITY;
  /** SES itself throttled a message of this window: the batch backs off instead of only waiting for its next window. */
  sesThrottled = false;

  constructor(
    private readonly slots: readonly number[],
    /** When the window closes: every bucket has paid for its messages. */
    readonly end: number,
    private readonly intervalMs: number,
  ) {}

  /** Waits for the next message's time; false when the window has no slot left (the rest of the batch comes back later). */
  async take(): Promise<boolean> {
    const slot = this.slots[this.taken++];
    if (slot === undefined) return false;
    // Decided before waiting, so concurrent senders queue up one interval apart.
    const at = Math.max(slot, this.last + this.intervalMs, Date.now());
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

export type BatchPacing = { schedule: SendSchedule } | { laterSeconds: number };

/**
 * Reserves sending time for `count` messages of one of `account`'s batches,
 * at most MAX_WINDOW_MS of it at the slowest rate (fewer messages when that
 * rate is low; the rest of the batch comes back). `laterSeconds`: no window
 * opens soon enough, nothing was reserved, the batch comes back then.
 */
export async function paceBatch(account: Pick<AccountRecord, 'accountId' | 'sendRate'>, count: number, now = Date.now()): Promise<BatchPacing> {
  const buckets: Bucket[] = [
    { key: sesRateKey(sesRateScope()), rate: await broadcastSesRate(now) },
    ...(account.sendRate ? [{ key: accountRateKey(account.accountId), rate: account.sendRate }] : []),
  ];
  const slowest = Math.min(...buckets.map((bucket) => bucket.rate));
  const messages = Math.max(1, Math.min(count, Math.floor((slowest * MAX_WINDOW_MS) / 1000)));
  const reservations = await Promise.all(buckets.map((bucket) => reserveBucketTime(bucket.key, (messages * 1000) / bucket.rate, now, MAX_WAIT_MS)));
  const windows = reservations.flatMap((reservation) => ('end' in reservation ? [reservation] : []));
  if (windows.length < buckets.length) {
    // One bucket refused: the other's window goes back rather than idling while the batch waits.
    await Promise.all(reservations.map((reservation, index) => ('end' in reservation ? returnBucketTime(buckets[index]!.key, reservation) : undefined)));
    const retryAt = Math.max(...reservations.map((reservation) => ('retryAt' in reservation ? reservation.retryAt : 0)));
    return { laterSeconds: Math.max(1, Math.ceil((retryAt - now) / 1000)) };
  }
  const slots = Array.from({ length: messages }, (_, index) =>
    Math.max(...windows.map((window, bucket) => window.start + (index * 1000) / buckets[bucket]!.rate)),
  );
  return { schedule: new SendSchedule(slots, Math.max(...windows.map((window) => window.end)), 1000 / slowest) };
}

/** What a message beyond the window's slots gets: the engine's throttled path releases its claim and the batch comes back. */
const NO_SLOT: SendOutcome = { status: 'failed', error: 'SES_THROTTLED', message: 'Held back by pacing until the next window' };

/** The transport as a paced batch uses it: each message waits for its slot, and SES's own throttling is noted on the schedule. */
export function pacedTransport(transport: MailTransport, schedule: SendSchedule): MailTransport {
  return {
    async send(email) {
      if (!(await schedule.take())) return NO_SLOT;
      const outcome = await transport.send(email);
      if (outcome.status === 'failed' && outcome.error === 'SES_THROTTLED') schedule.sesThrottled = true;
      return outcome;
    },
  };
}

/**
 * How a batch with messages left over comes back: when pacing held them, as
 * soon as its next window can open; when SES throttled, after a delay that
 * doubles with each throttled attempt in a row (the step counts them).
 */
export function throttledRetry(step: BatchStep, schedule: SendSchedule | undefined): { step: BatchStep; delaySeconds: number } {
  const { throttled = 0, ...rest } = step;
  if (schedule && !schedule.sesThrottled) return { step: rest, delaySeconds: schedule.secondsToNextWindow() };
  return { step: { ...rest, throttled: throttled + 1 }, delaySeconds: backoffSeconds(throttled + 1, THROTTLE_DELAY_SECONDS) };
}
