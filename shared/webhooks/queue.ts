/**
 * The webhook delivery queue: one message per attempt of one delivery, so a
 * slow receiver delays only its own message. SQS delays a message at most
 * 15 minutes; a longer wait (the schedule goes up to 10 hours) is a message
 * that carries `notBefore` and is put back with the remaining delay each
 * time it surfaces early, up to 40 hops for 10 hours, instead of a timer in
 * a running worker or an EventBridge schedule per attempt.
 */
import * as v from 'valibot';
import { config } from '#shared/config.ts';
import { sqsRetryQueue, type RetryQueue } from '#shared/email/retry-queue.ts';
import { MAX_DELAY_SECONDS } from '#shared/model/retry-policy.ts';

const DeliveryMessageSchema = v.object({
  version: v.literal(1),
  accountId: v.string(),
  webhookId: v.string(),
  deliveryId: v.string(),
  /** The attempt this message makes, from 1. */
  attempt: v.pipe(v.number(), v.integer(), v.minValue(1)),
  /** Epoch ms before which the attempt must not be made. */
  notBefore: v.number(),
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

/** The deployment's webhook queue; none when WEBHOOK_QUEUE_URL is unset. */
export function configuredWebhookQueue(): WebhookQueue | undefined {
  return config.WEBHOOK_QUEUE_URL ? sqsRetryQueue(config.WEBHOOK_QUEUE_URL) : undefined;
}

/** Puts the message on the queue, to surface when it is due or in 15 minutes, whichever is first. */
export async function enqueueDelivery(queue: WebhookQueue, message: DeliveryMessage, now: number): Promise<void> {
  await queue.enqueue(encodeDeliveryMessage(message), queueDelaySeconds(message.notBefore, now));
}
