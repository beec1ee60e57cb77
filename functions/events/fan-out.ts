import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { inRegionScope } from '#shared/platform/dynamodb/regions.ts';
import { withLogContext } from '#shared/platform/log.ts';
import { fanOutStreamedItems } from '#shared/webhooks/stream.ts';

/**
 * Invoked by the table stream's event source (lib/event-fan-out.ts), filtered
 * to new event items, with ReportBatchItemFailures: Lambda hands the batch
 * again from the first record listed.
 */
export const handler = (event: DynamoDBStreamEvent, context?: Pick<Context, 'awsRequestId'>): Promise<DynamoDBBatchResponse> =>
  withLogContext({ lambdaRequestId: context?.awsRequestId }, async () => {
    const records = event.Records.flatMap(({ dynamodb }) =>
      dynamodb?.NewImage && dynamodb.SequenceNumber
        ? [{ id: dynamodb.SequenceNumber, item: unmarshall(dynamodb.NewImage as Record<string, AttributeValue>) }]
        : [],
    );
    const again = await inRegionScope(() => fanOutStreamedItems(records, Date.now()));
    return { batchItemFailures: again.map((itemIdentifier) => ({ itemIdentifier })) };
  });
