/**
 * A batch of queue messages as Lambda's SQS event source hands them over:
 * every message on its own, all at once (a slow receiver holds its own
 * message only; a slow lane keeps it from holding the others' workers:
 * queue.ts), and a message whose handling threw is reported as a partial
 * batch failure, to be received again, never the whole batch.
 */
import { log } from '#shared/platform/log.ts';
import { batchPace, deliverWebhook, type DeliverOptions } from './deliver.ts';
import { configuredWebhookLanes, decodeDeliveryMessage, enqueueDelivery, type DeliveryMessage } from './queue.ts';

/** One received queue message: what the handler takes from each SQS record. */
export interface ReceivedMessage {
  messageId: string;
  body: string;
}

/** The ids of the messages to receive again (a partial batch failure). */
export async function deliverWebhookBatch(
  records: readonly ReceivedMessage[],
  now: number,
  lanes = configuredWebhookLanes(),
  options: DeliverOptions = {},
): Promise<string[]> {
  if (!lanes) throw new Error('WEBHOOK_QUEUE_URL is not set: the worker cannot queue the next attempts');
  // One pace for the batch: a receiver is slow beside the others' answers (deliver.ts, BatchPace).
  const batched = { batch: batchPace(), ...options };
  const failed = await Promise.all(
    records.map(async (record) => {
      let message: DeliveryMessage;
      try {
        message = decodeDeliveryMessage(record.body);
      } catch {
        // Not a message this code wrote: receiving it again would change nothing.
        log.error('webhook worker: unreadable message dropped', { messageId: record.messageId });
        return false;
      }
      try {
        const next = await deliverWebhook(message, now, batched);
        if (next.action === 'enqueue') await enqueueDelivery(lanes, next.message, now);
        return false;
      } catch (error) {
        log.error('webhook worker: message failed, to be received again', { messageId: record.messageId, error });
        return true;
      }
    }),
  );
  return records.filter((_record, index) => failed[index]).map((record) => record.messageId);
}
