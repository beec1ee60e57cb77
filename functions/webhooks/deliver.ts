import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { withLogContext } from '#shared/platform/log.ts';
import { deliverWebhookBatch } from '#shared/webhooks/worker.ts';

/**
 * Invoked by the webhook queue's event source (lib/webhooks.ts) with
 * ReportBatchItemFailures: a message it lists is received again later, the
 * others are deleted.
 */
export const handler = (event: SQSEvent, context?: Pick<Context, 'awsRequestId'>): Promise<SQSBatchResponse> =>
  withLogContext({ lambdaRequestId: context?.awsRequestId }, async () => {
    const again = await deliverWebhookBatch(
      event.Records.map(({ messageId, body }) => ({ messageId, body })),
      Date.now(),
    );
    return { batchItemFailures: again.map((itemIdentifier) => ({ itemIdentifier })) };
  });
