import type { Context, EventBridgeEvent } from 'aws-lambda';
import { applySesEvent } from '#shared/domain/feedback.ts';
import { withLogContext } from '#shared/log.ts';
import { inRegionScope } from '#shared/data/regions.ts';

/** Invoked by the EventBridge rule of lib/feedback.ts, SES's event as `detail`; a throw makes Lambda retry the event. */
export const handler = async (event: Partial<EventBridgeEvent<string, unknown>>, context?: Pick<Context, 'awsRequestId'>): Promise<void> =>
  withLogContext({ lambdaRequestId: context?.awsRequestId, detailType: event['detail-type'] }, async () => {
    await inRegionScope(() => applySesEvent(event.detail, new Date()));
  });
