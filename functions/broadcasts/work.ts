import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { runStep } from '#shared/broadcasts/engine.ts';
import { inRegionScope } from '#shared/platform/dynamodb/regions.ts';
import { decodeStep } from '#shared/broadcasts/queue.ts';
import { log, withLogContext } from '#shared/platform/log.ts';

/**
 * Invoked by the broadcast queue's event source (lib/broadcasts.ts) with
 * ReportBatchItemFailures: a step it lists (it threw, or a recipient of its
 * batch is held by another attempt) is received again later; a body that is
 * no step is logged and dropped.
 */
export const handler = (event: SQSEvent, context?: Pick<Context, 'awsRequestId'>): Promise<SQSBatchResponse> =>
  withLogContext({ lambdaRequestId: context?.awsRequestId }, async () => {
    const failures: { itemIdentifier: string }[] = [];
    for (const record of event.Records) {
      const step = decodeStep(record.body);
      if (!step) {
        log.error('broadcast step dropped: not a step', { messageId: record.messageId });
        continue;
      }
      try {
        const result = await inRegionScope(() => runStep(step, new Date()));
        if (!result.settled) failures.push({ itemIdentifier: record.messageId });
      } catch (error) {
        log.error('broadcast step failed', { messageId: record.messageId, accountId: step.accountId, broadcastId: step.broadcastId, error });
        failures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures: failures };
  });
