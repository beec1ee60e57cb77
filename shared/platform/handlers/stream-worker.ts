/**
 * The frame of a function the table's stream invokes with
 * ReportBatchItemFailures (the event fan-out), as queue-worker.ts is the
 * queues': the invocation's frame (invocation.ts), the records' new items
 * unmarshalled, and the ids the worker answers turned into the partial batch
 * response. Lambda hands the batch again from the first record listed, so a
 * worker lists every record that failed, in the batch's order; a throw hands
 * the whole batch again.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { inInvocation, type InvocationContext } from './invocation.ts';

/** One stream record's new item, unmarshalled, and the id to report it by (its sequence number). */
export interface StreamedItem {
  id: string;
  item: Record<string, unknown>;
}

export type StreamWorker = (event: DynamoDBStreamEvent, context?: InvocationContext) => Promise<DynamoDBBatchResponse>;

/**
 * `batch` gets the new item of every record that has one (a removal has
 * none: nothing to do) and answers the ids to hand again.
 *
 * `export const handler = streamWorker((items) => fanOutStreamedItems(items, Date.now()))`
 */
export function streamWorker(batch: (items: readonly StreamedItem[]) => Promise<readonly string[]>): StreamWorker {
  return (event, context) =>
    inInvocation(context, async () => {
      const items = event.Records.flatMap(({ dynamodb }) =>
        dynamodb?.NewImage && dynamodb.SequenceNumber
          ? [{ id: dynamodb.SequenceNumber, item: unmarshall(dynamodb.NewImage as Record<string, AttributeValue>) }]
          : [],
      );
      const again = await batch(items);
      return { batchItemFailures: again.map((itemIdentifier) => ({ itemIdentifier })) };
    });
}
