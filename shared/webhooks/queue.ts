/**
 * The webhook delivery queues: one message per attempt of one delivery, on
 * one of two lanes. A receiver marked slow (slow-marks.ts: its host's mark, or
 * its account's, set by the worker: deliver.ts) has its deliveries on the slow
 * lane, whose few workers are all it can hold; every other receiver's stay on
 * the normal lane, so a slow receiver cannot fill the workers the others'
 * deliveries wait for (docs/webhooks.md, "A slow endpoint"). SQS delays a message at most
 * 15 minutes; a longer wait (the schedule goes up to 10 hours) is a message
 * that carries `notBefore` and is put back with the remaining delay each
 * time it surfaces early, up to 40 hops for 10 hours, instead of a timer in
 * a running worker or an EventBridge schedule per attempt.
 */
import * as v from 'valibot';
import { config } from '#shared/platform/config.ts';
import { sqsRetryQueue, type RetryQueue } from '#shared/sending/retry-queue.ts';
import { MAX_DELAY_SECONDS } from '#shared/sending/retry-policy.ts';

export const WEBHOOK_LANES = ['normal', 'slow'] as const;
export type WebhookLane = (typeof WEBHOOK_LANES)[number];

const DeliveryMessageSchema = v.object({
  version: v.literal(1),
  accountId: v.string(),
  webhookId: v.string(),
  deliveryId: v.string(),
  /** The attempt this message makes, from 1. */
  attempt: v.pipe(v.number(), v.integer(), v.minValue(1)),
  /** Epoch ms before which the attempt must not be made. */
  notBefore: v.number(),
  /** The queue it is on; absent (messages written before the slow lane) is the normal one. */
  lane: v.optional(v.picklist(WEBHOOK_LANES)),
});

export type DeliveryMessage = v.InferOutput<typeof DeliveryMessageSchema>;

export function encodeDeliveryMessage(message: DeliveryMessage): string {
  return JSON.stringify(message);
}

/** The message a body holds; throws when the body is not one this code wrote. */
export function decodeDeliveryMessage(body: string): DeliveryMessage {
  return v.parse(DeliveryMessageSchema, JSON.parse(body));
}

/** Seconds SQS should hold a message due at `notBefore`: what is left, at most SQS's 15 minutes. */
export function queueDelaySeconds(notBefore: number, now: number): number {
  return Math.min(MAX_DELAY_SECONDS, Math.max(0, Math.ceil((notBefore - now) / 1000)));
}

export type WebhookQueue = Pick<RetryQueue, 'enqueue'>;

/** The queue of each lane. */
export type WebhookLanes = Record<WebhookLane, WebhookQueue>;

/** The deployment's webhook queues; none when WEBHOOK_QUEUE_URL is unset. The stack always sets both URLs. */
export function configuredWebhookLanes(): WebhookLanes | undefined {
  if (!config.WEBHOOK_QUEUE_URL) return undefined;
  if (!config.WEBHOOK_SLOW_QUEUE_URL) throw new Error('WEBHOOK_SLOW_QUEUE_URL is not set: the slow lane has no queue');
  return { normal: sqsRetryQueue(config.WEBHOOK_QUEUE_URL), slow: sqsRetryQueue(config.WEBHOOK_SLOW_QUEUE_URL) };
}

/** The lane a message is on. */
export function laneOfMessage(message: DeliveryMessage): WebhookLane {
  return message.lane ?? 'normal';
}

/** Puts the message on its lane's queue, to surface when it is due or in 15 minutes, whichever is first. */
export async function enqueueDelivery(lanes: WebhookLanes, message: DeliveryMessage, now: number): Promise<void> {
  await lanes[laneOfMessage(message)].enqueue(encodeDeliveryMessage(message), queueDelaySeconds(message.notBefore, now));
}

/** The message of an attempt of a delivery, on `lane` (slow-marks.ts `laneOf`). */
export function deliveryMessage(
  accountId: string,
  webhookId: string,
  deliveryId: string,
  attempt: number,
  notBefore: number,
  lane: WebhookLane,
): DeliveryMessage {
  return { version: 1, accountId, webhookId, deliveryId, attempt, notBefore, ...(lane === 'slow' ? { lane } : {}) };
}
