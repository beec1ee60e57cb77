import { queueWorker } from '#shared/platform/handlers/queue-worker.ts';
import { decodeDeliveryMessage } from '#shared/webhooks/queue.ts';
import { deliveryBatch } from '#shared/webhooks/worker.ts';

/**
 * Invoked by the webhook lanes' event sources (lib/webhooks.ts): every
 * delivery of a batch at once, so a slow receiver holds its own message
 * only; a failed attempt queues its next one itself, so only a delivery
 * whose handling threw (the table or the queue failing) is received again.
 */
export const handler = queueWorker({
  name: 'webhook delivery',
  order: 'concurrent',
  decode: decodeDeliveryMessage,
  unreadable: 'drop',
  perBatch: () => deliveryBatch(Date.now()),
});
