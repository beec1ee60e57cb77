/**
 * The export queue: one message per audience export too large for its
 * request, taken by the export worker (functions/audiences/export-work.ts).
 * The message names the export record only; running it twice writes the same
 * file and finds the record already ended (shared/contacts/export.ts).
 */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import * as v from 'valibot';
import { sqs } from '#shared/platform/aws/sqs.ts';
import { config } from '#shared/platform/config.ts';

export const ExportJob = v.object({ accountId: v.string(), audienceId: v.string(), exportId: v.string() });
export type ExportJob = v.InferOutput<typeof ExportJob>;

/** Puts the job on the deployment's export queue; without one (EXPORT_QUEUE_URL unset), fails loudly. */
export async function enqueueExport(job: ExportJob): Promise<void> {
  if (!config.EXPORT_QUEUE_URL) throw new Error('EXPORT_QUEUE_URL is not set: large exports need their queue');
  await sqs.send(new SendMessageCommand({ QueueUrl: config.EXPORT_QUEUE_URL, MessageBody: JSON.stringify(job) }));
}

/** A job as the worker receives it; undefined for a body that is none (dropped, not retried). */
export function decodeExportJob(body: string): ExportJob | undefined {
  try {
    const parsed = v.safeParse(ExportJob, JSON.parse(body));
    return parsed.success ? parsed.output : undefined;
  } catch {
    return undefined;
  }
}
