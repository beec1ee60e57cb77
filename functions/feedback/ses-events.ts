import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { applyQueuedSesEvent } from '#shared/feedback/service.ts';
import { log, withLogContext } from '#shared/platform/log.ts';
import { inRegionScope } from '#shared/platform/dynamodb/regions.ts';

/**
 * Invoked by the feedback queue's event source (lib/feedback.ts) with
 * ReportBatchItemFailures, each record the EventBridge event the rule put on
 * the queue. An event that failed (DynamoDB throttled or down) is listed,
 * received again later, and moved to the dead-letter queue after its last
 * receive; the others are deleted. One after the other, so that events about
 * one message keep their order.
 */
export const handler = async (event: SQSEvent, context?: Pick<Context, 'awsRequestId'>): Promise<SQSBatchResponse> => {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  for (const { messageId, body } of event.Records) {
    await withLogContext({ lambdaRequestId: context?.awsRequestId, messageId }, async () => {
      try {
        await inRegionScope(() => applyQueuedSesEvent(body, new Date()));
      } catch (error) {
        log.error('SES event not applied; received again later', { error });
        batchItemFailures.push({ itemIdentifier: messageId });
      }
    });
  }
  return { batchItemFailures };
};
