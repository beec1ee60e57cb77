/**
 * The record of one audience export (shared/contacts/export.ts): its status
 * as the worker moves it, the rows written, and why it failed. One item per
 * export under its account (`acc_…#EXP` / `aud_…#exp_…`), so a caller's key
 * can only ever read its own account's; expired with the file it describes.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, getMapped, tableName, updateReturning } from '#shared/platform/dynamodb/client.ts';
import { accountScoped } from '#shared/platform/dynamodb/partition.ts';
import { TTL_ATTRIBUTE } from '#shared/platform/dynamodb/table.ts';
import { EXPORT_DAYS } from './export-policy.ts';

export type ExportStatus = 'queued' | 'running' | 'ready' | 'failed';

export interface ExportRecord {
  accountId: string;
  audienceId: string;
  exportId: string;
  status: ExportStatus;
  /** Contacts written; 0 until `ready`. */
  rows: number;
  /** The name the download is saved as, from the audience's name when the export was asked for. */
  fileName: string;
  createdAt: string;
  /** Workers that took the job (receives of its message that got to start it). */
  attempts: number;
  /** Why a `failed` export failed, in words a person can act on. */
  reason?: string;
}

const exportKey = (accountId: string, audienceId: string, exportId: string) => ({ pk: accountScoped(accountId, 'EXP'), sk: `${audienceId}#${exportId}` });

/** The record is removed (DynamoDB TTL) when the bucket's lifecycle removes its file. */
const expiry = (createdAt: string) => Math.ceil(Date.parse(createdAt) / 1000) + EXPORT_DAYS * 24 * 60 * 60;

function toExport(item: Record<string, unknown>): ExportRecord {
  return {
    accountId: item.accountId as string,
    audienceId: item.audienceId as string,
    exportId: item.exportId as string,
    status: item.status as ExportStatus,
    rows: item.rows as number,
    fileName: item.fileName as string,
    createdAt: item.createdAt as string,
    attempts: (item.attempts as number | undefined) ?? 0,
    ...(typeof item.reason === 'string' ? { reason: item.reason } : {}),
  };
}

export async function putExport(record: ExportRecord): Promise<void> {
  const key = exportKey(record.accountId, record.audienceId, record.exportId);
  await db.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...key, entity: 'audienceExport', ...record, [TTL_ATTRIBUTE]: expiry(record.createdAt) },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

/** The export, or undefined when there is none (also once its time has passed, before DynamoDB removes it). */
export async function getExport(accountId: string, audienceId: string, exportId: string, now: Date): Promise<ExportRecord | undefined> {
  const item = await getMapped(exportKey(accountId, audienceId, exportId), (found) => found);
  if (!item || (item[TTL_ATTRIBUTE] as number) * 1000 <= now.getTime()) return undefined;
  return toExport(item);
}

/**
 * A worker takes the job: `running`, one more attempt. Undefined when the
 * export is no longer waiting or running (done, failed, expired): a
 * redelivered message then does nothing.
 */
export async function startExport(accountId: string, audienceId: string, exportId: string): Promise<ExportRecord | undefined> {
  const item = await updateReturning({
    Key: exportKey(accountId, audienceId, exportId),
    UpdateExpression: 'SET #status = :running ADD attempts :one',
    ConditionExpression: 'attribute_exists(pk) AND #status IN (:queued, :running)',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':running': 'running', ':queued': 'queued', ':one': 1 },
  });
  return item && toExport(item);
}

/** `ready` with its rows, only from `running`: a record already ended (failed by age) stays as it is. */
export async function finishExport(accountId: string, audienceId: string, exportId: string, rows: number): Promise<ExportRecord | undefined> {
  const item = await updateReturning({
    Key: exportKey(accountId, audienceId, exportId),
    UpdateExpression: 'SET #status = :ready, #rows = :rows',
    ConditionExpression: '#status = :running',
    ExpressionAttributeNames: { '#status': 'status', '#rows': 'rows' },
    ExpressionAttributeValues: { ':ready': 'ready', ':running': 'running', ':rows': rows },
  });
  return item && toExport(item);
}

/** `failed` with its reason, only while it is still waiting or running. */
export async function failExport(accountId: string, audienceId: string, exportId: string, reason: string): Promise<ExportRecord | undefined> {
  const item = await updateReturning({
    Key: exportKey(accountId, audienceId, exportId),
    UpdateExpression: 'SET #status = :failed, reason = :reason',
    ConditionExpression: '#status IN (:queued, :running)',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':failed': 'failed', ':queued': 'queued', ':running': 'running', ':reason': reason },
  });
  return item && toExport(item);
}
