import { reconcileSuppressionList } from '#shared/feedback/reconciliation.ts';
import { scheduledJob } from '#shared/platform/handlers/scheduled-job.ts';

/** Invoked by the schedule of lib/feedback.ts; a throw leaves the cursor, so the next run covers the window again. */
export const handler = scheduledJob(() => reconcileSuppressionList(new Date()));
