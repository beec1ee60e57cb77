import { streamWorker } from '#shared/platform/handlers/stream-worker.ts';
import { fanOutStreamedItems } from '#shared/webhooks/stream.ts';

/** Invoked by the table stream's event source (lib/event-fan-out.ts), filtered to new event items. */
export const handler = streamWorker((items) => fanOutStreamedItems(items, Date.now()));
