import { applyQueuedSesEvent, decodeQueuedSesEvent } from '#shared/feedback/service.ts';
import { queueWorker } from '#shared/platform/handlers/queue-worker.ts';

/**
 * Invoked by the feedback queue's event source (lib/feedback.ts), each
 * record the EventBridge event the rule put on the queue. An event that
 * failed (DynamoDB throttled or down) is received again later and moved to
 * the dead-letter queue after its last receive, as is a body that is no
 * event, for `admin feedback replay`. One after the other, so that events
 * about one message keep their order.
 */
export const handler = queueWorker({
  name: 'SES event',
  order: 'sequential',
  decode: decodeQueuedSesEvent,
  unreadable: 'again',
  each: async (event) => {
    await applyQueuedSesEvent(event, new Date());
  },
});
