import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { sendQueuedMessages } from '#shared/sending/retry.ts';
import { withLogContext } from '#shared/platform/log.ts';
import { inRegionScope } from '#shared/platform/dynamodb/regions.ts';

/**
 * Invoked by the retry queue's event source (lib/retry-queue.ts) with
 * ReportBatchItemFailures: a message it lists is received again later, the
 * others are deleted.
 */
export const handler = (event: SQSEvent, context?: Pick<Context, 'awsRequestId'>): Promise<SQSBatchResponse> =>
  withLogContext({ lambdaRequestId: context?.awsRequestId }, async () => {
    const settled = await inRegionScope(() =>
      sendQueuedMessages(
        event.Records.map((record) => ({
          messageId: record.messageId,
          body: record.body,
          receives: Number(record.attributes.ApproximateReceiveCount),
          receiptHandle: record.receiptHandle,
        })),
      ),
    );
    return { batchItemFailures: event.Records.filter((_record, index) => settled[index] === 'again').map((record) => ({ itemIdentifier: record.messageId })) };
  });
