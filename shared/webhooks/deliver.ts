/**
 * The webhook worker's logic, one queue message at a time: make the attempt
 * the message names, record it, and say what should be queued next. It never
 * waits in process: a message that surfaces before it is due goes back with
 * the remaining delay, and a retry is a new message. An attempt is made only
 * while its endpoint exists and is enabled (a test event's first attempt
 * aside), and only then is a failed one tried again. It also keeps the lanes
 * (queue.ts, slow-marks.ts): an attempt still unanswered SLOW_DELIVERY_MS
 * after its batch's first answer marks its receiver slow, and a normal-lane
 * message of a receiver marked slow moves to the slow lane unattempted
 * (queued before the mark, it would otherwise hold a normal worker as long as
 * the receiver takes).
 */
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import {
  abandonDelivery,
  claimAttempt,
  clearEndpointFailing,
  disableFailingEndpoint,
  finishAttempt,
  getDelivery,
  getEndpoint,
  getSlowMarks,
  markEndpointFailing,
  type Delivery,
  type SlowMarks,
  type WebhookEndpoint,
} from './store.ts';
import { recordEvent } from '#shared/events/service.ts';
import { log } from '#shared/platform/log.ts';
import { postWebhook, type PostResult } from './delivery-client.ts';
import { deliveryMessage, laneOfMessage, type DeliveryMessage } from './queue.ts';
import { DELIVERY_TIMEOUT_MS, DISABLE_AFTER_MS, retryDelaySeconds, SLOW_ALONE_MS, SLOW_DELIVERY_MS } from './schedule.ts';
import { laneOf, markReceiverSlow, withSlowHost, receiverHost } from './slow-marks.ts';
import { signedHeaders } from './signing.ts';
import { configuredUrlPolicy, resolveWebhookTarget, UnsafeUrlError, type UrlPolicy } from './url-safety.ts';

/** What the caller should do once the message is handled: nothing, or queue `message` (it is due at its `notBefore`). */
export type NextStep = { action: 'done'; outcome: string } | { action: 'enqueue'; message: DeliveryMessage };

/**
 * The first answer among the attempts of one batch (any outcome: a status, a
 * refused connection, an error). The worker's own lag (a starved CPU, a
 * pause) delays every attempt of a batch alike, a slow receiver only its own:
 * attempts are timed from it (SLOW_DELIVERY_MS), not from their start alone.
 */
export interface BatchPace {
  firstAnswer: Promise<void>;
  answered(): void;
}

/** A pace for the attempts of one batch; `deliverWebhook` without one is a batch of its own. */
export function batchPace(): BatchPace {
  let resolve = () => {};
  const firstAnswer = new Promise<void>((resolved) => {
    resolve = resolved;
  });
  return { firstAnswer, answered: () => resolve() };
}

export interface DeliverOptions {
  policy?: UrlPolicy;
  /** The signature's time: the moment the request leaves, whatever `now` the schedule runs on. */
  clock?: () => Date;
  /** Shared by the messages of one batch (worker.ts). */
  batch?: BatchPace;
}

/** Longer than one attempt can take, so a live attempt is never taken over. */
const LEASE_MS = DELIVERY_TIMEOUT_MS * 3;

async function attempt(endpoint: WebhookEndpoint, delivery: Delivery, policy: UrlPolicy, clock: () => Date): Promise<PostResult> {
  const eventId = (JSON.parse(delivery.payload) as { id: string }).id;
  try {
    const { url, target } = await resolveWebhookTarget(endpoint.url, policy);
    return await postWebhook(url, target, delivery.payload, signedHeaders(endpoint.secret, eventId, delivery.payload, clock()));
  } catch (error) {
    if (error instanceof UnsafeUrlError) return { error: error.message, durationMs: 0 };
    throw error;
  }
}

/**
 * Turns of the event loop an attempt is given, once its time is up, before it
 * is judged slow. After a pause (a starved CPU, a collection) timers run
 * before the I/O that came in meanwhile is read, so an answer waiting in its
 * socket would pass for none; a turn reads it (a receiver in this process, as
 * in the tests and the benchmark, takes one more to answer and another to be
 * read).
 */
const IO_TURNS = 3;

async function afterPendingIo(signal: AbortSignal): Promise<void> {
  for (let turn = 0; turn < IO_TURNS; turn++) await nextTurn(undefined, { signal });
}

/**
 * Waits for the attempt, marking its receiver slow when it is still
 * unanswered SLOW_DELIVERY_MS after its batch's first answer (or SLOW_ALONE_MS
 * after it started, with no answer in the batch), unless it is on the slow
 * lane already: a receiver that hangs until the timeout is marked then, not
 * ten seconds later, so fewer of its deliveries reach normal workers
 * meanwhile. Answers the marks the next attempt's lane is chosen by. A failed
 * mark costs only the lane: the attempt's outcome is still recorded.
 */
async function timed(
  posting: Promise<PostResult>,
  accountId: string,
  endpoint: WebhookEndpoint,
  marks: SlowMarks,
  now: number,
  batch: BatchPace,
): Promise<{ result: PostResult; marks: SlowMarks }> {
  if (laneOf(marks, endpoint.url, now) === 'slow') return { result: await posting, marks };
  const cancel = new AbortController();
  const wait = (ms: number) => sleep(ms, undefined, { signal: cancel.signal });
  const slow = Promise.race([batch.firstAnswer.then(() => wait(SLOW_DELIVERY_MS)), wait(SLOW_ALONE_MS)])
    .then(() => afterPendingIo(cancel.signal))
    .then(
      () => 'slow' as const,
      () => 'answered' as const,
    );
  const first = await Promise.race([posting, slow]);
  cancel.abort();
  if (first !== 'slow') return { result: await posting, marks };
  // Whether this worker writes the mark or another did first, the retry is the slow lane's.
  let marked = withSlowHost(marks, receiverHost(endpoint.url), now) ?? marks;
  try {
    const written = await markReceiverSlow(accountId, endpoint.url, now);
    if (written) {
      marked = written;
      log.info('webhook receiver marked slow', {
        webhookId: endpoint.id,
        slowHosts: Object.keys(written.hosts).length,
        accountSlowUntil: written.accountUntil,
      });
    }
  } catch (error) {
    log.error('webhook receiver could not be marked slow', { webhookId: endpoint.id, error });
  }
  return { result: await posting, marks: marked };
}

/**
 * After a failed attempt: the endpoint's run of failures goes on, and once it
 * has lasted DISABLE_AFTER_MS the endpoint is disabled and `webhook.disabled`
 * recorded (once: only the worker whose condition holds does both).
 */
async function noteFailure(accountId: string, endpoint: WebhookEndpoint, now: number): Promise<void> {
  const at = new Date(now).toISOString();
  const failingSince = await markEndpointFailing(accountId, endpoint.id, at);
  if (!failingSince || now - Date.parse(failingSince) < DISABLE_AFTER_MS) return;
  if (!(await disableFailingEndpoint(accountId, endpoint.id, failingSince, at))) return;
  await recordEvent(
    accountId,
    {
      type: 'webhook.disabled',
      data: { webhookId: endpoint.id, url: endpoint.url, failingSince, reason: 'Every delivery failed for 24 hours' },
      sourceKey: `webhook.disabled:${endpoint.id}:${failingSince}`,
    },
    now,
  );
}

/**
 * Handles one queue message at `now`. `deliverWebhook(message, Date.now())`
 * in the Lambda; tests pass any `now` to walk the schedule without waiting.
 */
export async function deliverWebhook(message: DeliveryMessage, now: number, options: DeliverOptions = {}): Promise<NextStep> {
  if (message.notBefore > now) return { action: 'enqueue', message };
  const { accountId, webhookId, deliveryId } = message;
  const delivery = await getDelivery(accountId, webhookId, deliveryId);
  if (delivery?.status !== 'pending') return { action: 'done', outcome: 'settled' };
  const [endpoint, marks] = await Promise.all([getEndpoint(accountId, webhookId), getSlowMarks(accountId)]);
  // A test event checks a receiver before its endpoint is enabled: its first attempt only, never a retry.
  const testing = delivery.eventType === 'webhook.test' && message.attempt === 1;
  if (!endpoint || (!endpoint.enabled && !testing)) {
    await abandonDelivery(accountId, delivery, endpoint ? 'The webhook is disabled' : 'The webhook was deleted', new Date(now).toISOString());
    return { action: 'done', outcome: 'abandoned' };
  }
  if (laneOfMessage(message) === 'normal' && laneOf(marks, endpoint.url, now) === 'slow') {
    return { action: 'enqueue', message: { ...message, lane: 'slow' } };
  }
  const claimed = await claimAttempt(accountId, webhookId, deliveryId, message.attempt, now, now + LEASE_MS);
  // Another copy of this message made (or is making) the attempt.
  if (!claimed) return { action: 'done', outcome: 'duplicate' };

  const batch = options.batch ?? batchPace();
  const posting = attempt(endpoint, claimed, options.policy ?? configuredUrlPolicy(), options.clock ?? (() => new Date()));
  posting.then(batch.answered, batch.answered);
  const { result, marks: timedMarks } = await timed(posting, accountId, endpoint, marks, now, batch);
  const succeeded = result.statusCode !== undefined && result.statusCode >= 200 && result.statusCode < 300;
  // Retries go to enabled endpoints only (and each is checked again when it is due).
  const delay = succeeded || !endpoint.enabled ? undefined : retryDelaySeconds(message.attempt);
  const nextAttemptAt = delay === undefined ? undefined : now + delay * 1000;
  await finishAttempt(accountId, claimed, {
    status: succeeded ? 'succeeded' : delay === undefined ? 'failed' : 'pending',
    ...(nextAttemptAt === undefined ? {} : { nextAttemptAt: new Date(nextAttemptAt).toISOString() }),
    record: {
      attempt: message.attempt,
      at: new Date(now).toISOString(),
      ...(result.statusCode === undefined ? {} : { statusCode: result.statusCode }),
      ...(result.error === undefined ? {} : { error: result.error }),
      durationMs: result.durationMs,
    },
  });
  if (succeeded) {
    if (endpoint.failingSince) await clearEndpointFailing(accountId, webhookId);
    return { action: 'done', outcome: 'succeeded' };
  }
  log.info('webhook delivery failed', { webhookId, deliveryId, attempt: message.attempt, statusCode: result.statusCode, error: result.error });
  // A disabled endpoint's failures (a test event's) start no run towards disabling it.
  if (endpoint.enabled) await noteFailure(accountId, endpoint, now);
  if (nextAttemptAt === undefined) return { action: 'done', outcome: 'failed' };
  // The retry's lane is the receiver's at the time of this attempt: slow if this one marked it.
  const lane = laneOf(timedMarks, endpoint.url, now);
  return { action: 'enqueue', message: deliveryMessage(accountId, webhookId, deliveryId, message.attempt + 1, nextAttemptAt, lane) };
}
