import { runStep } from '#shared/broadcasts/engine.ts';
import { decodeStep } from '#shared/broadcasts/queue.ts';
import { queueWorker } from '#shared/platform/handlers/queue-worker.ts';

/**
 * Invoked by the broadcast queue's event source (lib/broadcasts.ts): a step
 * that threw, or whose batch has a recipient another attempt holds, is
 * received again later; a body that is no step is dropped.
 */
export const handler = queueWorker({
  name: 'broadcast step',
  order: 'sequential',
  decode: decodeStep,
  unreadable: 'drop',
  logFields: (step) => ({ accountId: step.accountId, broadcastId: step.broadcastId }),
  each: async (step) => ((await runStep(step, new Date())).settled ? 'done' : 'again'),
});
