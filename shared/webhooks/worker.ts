/**
 * What is webhooks' own in the delivery worker (functions/webhooks/deliver.ts,
 * the queue worker factory runs the batch): one `now` and one pace for a
 * batch's deliveries, and queueing each delivery's next attempt.
 */
import { batchPace, deliverWebhook, type DeliverOptions } from './deliver.ts';
import { configuredWebhookLanes, enqueueDelivery, type DeliveryMessage } from './queue.ts';

/**
 * Delivers one message of a batch: its attempt, then its next one queued on
 * its endpoint's lane. `deliveryBatch(now)` once per batch, then each message:
 * every attempt of the batch is timed against the same first answer.
 */
export function deliveryBatch(now: number, lanes = configuredWebhookLanes(), options: DeliverOptions = {}): (message: DeliveryMessage) => Promise<void> {
  if (!lanes) throw new Error('WEBHOOK_QUEUE_URL is not set: the worker cannot queue the next attempts');
  // One pace for the batch: a receiver is slow beside the others' answers (deliver.ts, BatchPace).
  const batched = { batch: batchPace(), ...options };
  return async (message) => {
    const next = await deliverWebhook(message, now, batched);
    if (next.action === 'enqueue') await enqueueDelivery(lanes, next.message, now);
  };
}
