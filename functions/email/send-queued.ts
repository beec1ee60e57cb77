import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { sendQueuedBatch } from '#shared/domain/retry.ts';

/**
 * Invoked by the retry queue's event source (lib/retry-queue.ts) with
 * ReportBatchItemFailures: a message it lists is received again later, the
 * others are deleted.
 */
export const handler = (event: SQSEvent): Promise<SQSBatchResponse> => sendQueuedBatch(event.Records);
