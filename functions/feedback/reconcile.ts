import type { Context } from 'aws-lambda';
import { reconcileSuppressionList, type ReconciliationRun } from '#shared/feedback/reconciliation.ts';
import { withLogContext } from '#shared/platform/log.ts';

/** Invoked by the schedule of lib/feedback.ts; a throw leaves the cursor, so the next run covers the window again. */
export const handler = (_event: unknown, context?: Pick<Context, 'awsRequestId'>): Promise<ReconciliationRun> =>
  withLogContext({ lambdaRequestId: context?.awsRequestId }, () => reconcileSuppressionList(new Date()));
