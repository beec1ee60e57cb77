import type { Context } from 'aws-lambda';
import { applySesEvent, type SesEventBridgeEvent } from '#shared/domain/feedback.ts';
import { withLogContext } from '#shared/log.ts';
import { inRegionScope } from '#shared/data/regions.ts';

/** Invoked by the EventBridge rule of lib/feedback.ts; a throw makes Lambda retry the event. */
export const handler = async (event: SesEventBridgeEvent, context?: Pick<Context, 'awsRequestId'>): Promise<void> =>
  withLogContext({ lambdaRequestId: context?.awsRequestId }, async () => {
    await inRegionScope(() => applySesEvent(event, new Date()));
  });
