import { decodeExportJob } from '#shared/contacts/export-queue.ts';
import { runExportJob } from '#shared/contacts/export.ts';
import { queueWorker } from '#shared/platform/handlers/queue-worker.ts';

/**
 * Invoked by the export queue's event source (lib/exports.ts): a job that
 * threw is received again after the visibility timeout, up to its last
 * receive, which ends the export `failed`; a body that is no job is dropped.
 */
export const handler = queueWorker({
  name: 'export job',
  order: 'sequential',
  decode: decodeExportJob,
  unreadable: 'drop',
  logFields: (job) => ({ accountId: job.accountId, exportId: job.exportId }),
  each: (job, received) => runExportJob(job, received.receives),
});
