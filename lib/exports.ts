import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import {
  EXPORT_MAX_CONCURRENCY,
  EXPORT_MAX_RECEIVES,
  EXPORT_WORKER_BATCH_SIZE,
  EXPORT_WORKER_MEMORY_MB,
  EXPORT_WORKER_TIMEOUT_SECONDS,
} from '#shared/contacts/export-policy.ts';
import type { AttachmentsAccess, TableAction } from '#shared/platform/http/routes.ts';
import { WorkerQueue, type WorkerQueueSettings } from './worker-queue.ts';

/**
 * The export worker, which no HTTP route invokes (shared/contacts/export.ts):
 * the export's record moves to running, ready or failed (UpdateItem, which
 * answers it); the audience's contacts, by disjoint id ranges (Query on
 * gsi1); the CSV under `exports/` (`writeExport`: s3:PutObject there only;
 * the routes sign the links).
 */
export const EXPORT_WORKER = {
  handler: 'audiences/export-work',
  table: ['UpdateItem', 'Query'],
  attachments: ['writeExport'],
  timeoutSeconds: EXPORT_WORKER_TIMEOUT_SECONDS,
  memoryMb: EXPORT_WORKER_MEMORY_MB,
} as const satisfies { handler: string; table: readonly TableAction[]; attachments: readonly AttachmentsAccess[]; timeoutSeconds: number; memoryMb: number };

/** The export queue: a job is tried EXPORT_MAX_RECEIVES times (the last failure ends its record `failed`), then dead-lettered. */
export const EXPORT_QUEUE = {
  name: 'exports',
  worker: EXPORT_WORKER,
  maxReceiveCount: EXPORT_MAX_RECEIVES,
  batchSize: EXPORT_WORKER_BATCH_SIZE,
  maxConcurrency: EXPORT_MAX_CONCURRENCY,
  deadLetterAlarmDescription:
    'an audience export job failed for good (exports dead-letter queue not empty): its worker crashed or timed out at every receive; the export reads as failed once stale, and the person may export again',
} as const satisfies WorkerQueueSettings;

export interface AudienceExportsProps {
  /** `postlane-<stage>`: the queues are `<prefix>-exports` and `<prefix>-exports-dlq`. */
  readonly namePrefix: string;
  readonly table: ITableV2;
  /** Where the CSV files go (`exports/`). */
  readonly attachmentsBucket: IBucket;
}

/**
 * Audience exports too large for their request (docs/api.md, "Exporting an
 * audience"): the queue the export route puts a job on, its dead-letter
 * queue with an alarm, and the worker that writes the file.
 */
export class AudienceExports extends WorkerQueue {
  constructor(scope: Construct, id: string, props: AudienceExportsProps) {
    super(scope, id, props, EXPORT_QUEUE);
  }
}
