import { queueWorker } from '#shared/platform/handlers/queue-worker.ts';
import { decodeRetryMessage, queuedSendBatch } from '#shared/sending/retry.ts';

/**
 * Invoked by the retry queue's event source (lib/retry-queue.ts): a message
 * not sent yet is rescheduled with backoff and received again; one this code
 * cannot read is received again too, until the dead-letter queue keeps it
 * for `admin retry replay`.
 */
export const handler = queueWorker({
  name: 'queued message',
  order: 'concurrent',
  decode: decodeRetryMessage,
  unreadable: 'again',
  perBatch: () => queuedSendBatch(),
});
