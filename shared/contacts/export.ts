/**
 * Exporting an audience to CSV: the server reads the audience's contacts
 * (Queries of its partition, never a scan), writes the file to the region's
 * attachments bucket under `exports/<account>/`, and answers a short-lived
 * presigned link to it, so a browser downloads 100,000 contacts without paging
 * through the API. Every export has a record (export-store.ts): up to the
 * synchronous limit it is written `ready` within the request; beyond, it is
 * `queued` and the export worker (functions/audiences/export-work.ts) takes it
 * from the export queue (docs/api.md, "Exporting an audience").
 */
import { notFound } from '#shared/platform/errors.ts';
import { getAudienceRecord } from '#shared/audiences/service.ts';
import { attachmentsBucketObject } from '#shared/attachments/service.ts';
import { config } from '#shared/platform/config.ts';
import { presignGet, putObject } from '#shared/platform/aws/s3.ts';
import { idBoundAt, isId, newId, timeOfId } from '#shared/platform/ids.ts';
import { findById } from '#shared/platform/lookup.ts';
import { log } from '#shared/platform/log.ts';
import { audienceContactPages, audienceContactSpan, type ContactIdRange, type ContactRecord } from './store.ts';
import {
  EXPORT_LINK_SECONDS,
  EXPORT_MAX_CONTACTS,
  EXPORT_MAX_RECEIVES,
  EXPORT_PAGE_ITEMS,
  EXPORT_READ_SEGMENTS,
  EXPORT_STALE_MS,
  EXPORTS_PREFIX,
} from './export-policy.ts';
import { failExport, finishExport, getExport, putExport, startExport, type ExportRecord, type ExportStatus } from './export-store.ts';
import { enqueueExport, type ExportJob } from './export-queue.ts';

/** `exports/acc_…/aud_…/exp_….csv`: the account first, so a key of one account can never name another's file. */
export const exportObjectKey = (accountId: string, audienceId: string, exportId: string) => `${EXPORTS_PREFIX}${accountId}/${audienceId}/${exportId}.csv`;

/** An export as the API answers it: `url` and `expiresAt` (a link minted for this answer) once `ready`, `reason` once `failed`. */
export interface AudienceExport {
  id: string;
  status: ExportStatus;
  rows: number;
  url?: string;
  expiresAt?: string;
  reason?: string;
  createdAt: string;
}

const FIXED_COLUMNS = ['email', 'firstName', 'lastName', 'phone', 'status', 'tags', 'createdAt', 'updatedAt'] as const;

/**
 * One CSV cell (RFC 4180): quoted when it holds a comma, quote or line break.
 * A text that a spreadsheet would read as a formula (=, +, -, @, tab, CR first)
 * gets a leading apostrophe, OWASP's advice against CSV injection: contacts
 * come from public forms, and an export is opened in Excel.
 */
export function csvCell(value: string | number | boolean | undefined): string {
  if (value === undefined) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function fixedCells(contact: ContactRecord): string[] {
  return [
    csvCell(contact.email),
    csvCell(contact.firstName),
    csvCell(contact.lastName),
    // Phone numbers are checked against digits, spaces and + ( ) . - only: none can hold a formula, and `+1 555…` is kept as typed.
    contact.phone === undefined ? '' : /[",]/.test(contact.phone) ? csvCell(contact.phone) : contact.phone,
    contact.status,
    csvCell(contact.tags.join(';')),
    contact.createdAt,
    contact.updatedAt,
  ];
}

/**
 * The CSV of `contacts`: the fixed columns, then one `customFields.<key>`
 * column per custom field key any contact has, sorted; tags joined by `;`.
 */
export function contactsCsv(contacts: readonly ContactRecord[]): string {
  const keys = [...new Set(contacts.flatMap((contact) => Object.keys(contact.customFields)))].sort();
  const lines = [[...FIXED_COLUMNS, ...keys.map((key) => `customFields.${key}`)].map((name) => csvCell(name)).join(',')];
  for (const contact of contacts) lines.push([...fixedCells(contact), ...keys.map((key) => csvCell(contact.customFields[key]))].join(','));
  return `${lines.join('\r\n')}\r\n`;
}

/** The synchronous limit: the policy's, or a lower one the environment sets (tests queue small audiences with it). */
export const syncExportLimit = () => config.EXPORT_SYNC_MAX_CONTACTS ?? EXPORT_MAX_CONTACTS;

/**
 * Starts an export of the audience. An audience whose count (the maintained
 * counter) is within `max` is written now and answered `ready`; a larger one
 * is recorded `queued` and put on the export queue.
 */
export async function requestExport(accountId: string, audienceId: string, now: Date, max = syncExportLimit()): Promise<AudienceExport> {
  const audience = await findById('aud', audienceId, () => getAudienceRecord(accountId, audienceId), notFound.audience);
  const record: ExportRecord = {
    accountId,
    audienceId,
    exportId: newId('exp', now.getTime()),
    status: 'queued',
    rows: 0,
    fileName: fileName(audience.audience.name),
    createdAt: now.toISOString(),
    attempts: 0,
  };
  if (audience.counters.count > max) {
    await putExport(record);
    try {
      await enqueueExport({ accountId, audienceId, exportId: record.exportId });
    } catch (error) {
      await failExport(accountId, audienceId, record.exportId, 'The export could not be queued; export again');
      throw error;
    }
    return view(record, now);
  }
  const ready: ExportRecord = { ...record, status: 'ready', rows: await writeExportFile(record), attempts: 1 };
  await putExport(ready);
  return view(ready, now);
}

/**
 * The export as it stands, with a fresh link while it is `ready`. One still
 * waiting or running past EXPORT_STALE_MS has no worker left (each attempt
 * timed out or crashed, and its job went to the dead letters): it ends
 * `failed` here.
 */
export async function readExport(accountId: string, audienceId: string, exportId: string, now: Date): Promise<AudienceExport> {
  if (!isId('aud', audienceId)) throw notFound.audienceExport();
  let record = await findById('exp', exportId, () => getExport(accountId, audienceId, exportId, now), notFound.audienceExport);
  if ((record.status === 'queued' || record.status === 'running') && now.getTime() - Date.parse(record.createdAt) > EXPORT_STALE_MS) {
    record = (await failExport(accountId, audienceId, exportId, STOPPED_REASON)) ?? (await getExport(accountId, audienceId, exportId, now)) ?? record;
  }
  return view(record, now);
}

const STOPPED_REASON = 'The export did not finish: its worker stopped at every attempt. Export again.';
const FAILED_REASON = `The export failed at each of its ${EXPORT_MAX_RECEIVES} attempts. Export again.`;

/**
 * One receive of an export job (the export worker). A job whose record has
 * ended (ready, failed) or expired does nothing, so a redelivered message
 * writes no second file and counts nothing twice; a running one is run again
 * from the start, over the same file. A failure on the last receive ends the
 * record `failed`; earlier ones throw, for the queue to hand the job again.
 */
export async function runExportJob(job: ExportJob, receives: number): Promise<void> {
  const record = await startExport(job.accountId, job.audienceId, job.exportId);
  if (!record) {
    log.info('export job skipped: its export has ended', { exportId: job.exportId });
    return;
  }
  try {
    const rows = await writeExportFile(record);
    await finishExport(job.accountId, job.audienceId, job.exportId, rows);
  } catch (error) {
    if (receives < EXPORT_MAX_RECEIVES) throw error;
    log.error('export failed for good', { exportId: job.exportId, error });
    await failExport(job.accountId, job.audienceId, job.exportId, FAILED_REASON);
  }
}

async function view(record: ExportRecord, now: Date): Promise<AudienceExport> {
  const base = { id: record.exportId, status: record.status, rows: record.rows };
  if (record.status === 'failed') return { ...base, reason: record.reason ?? FAILED_REASON, createdAt: record.createdAt };
  if (record.status !== 'ready') return { ...base, createdAt: record.createdAt };
  const location = attachmentsBucketObject(exportObjectKey(record.accountId, record.audienceId, record.exportId));
  const link = await presignGet(location, { expiresInSeconds: EXPORT_LINK_SECONDS, downloadAs: `${record.fileName}.csv`, signingDate: now });
  return { ...base, url: link.url, expiresAt: link.expiresAt.toISOString(), createdAt: record.createdAt };
}

/** Writes the export's file (the same key every time: a second attempt replaces the first's) and answers its rows. */
async function writeExportFile(record: ExportRecord): Promise<number> {
  const contacts = await readAudienceContacts(record.accountId, record.audienceId);
  const location = attachmentsBucketObject(exportObjectKey(record.accountId, record.audienceId, record.exportId));
  await putObject(location, Buffer.from(contactsCsv(contacts)), 'text/csv; charset=utf-8');
  return contacts.length;
}

/**
 * Every contact of the audience, oldest first: EXPORT_READ_SEGMENTS Queries at
 * once over disjoint ranges of creation time (contact ids begin with it),
 * between the oldest and newest contact, concatenated in range order.
 */
export async function readAudienceContacts(
  accountId: string,
  audienceId: string,
  segments = EXPORT_READ_SEGMENTS,
  pageItems = EXPORT_PAGE_ITEMS,
): Promise<ContactRecord[]> {
  const span = await audienceContactSpan(accountId, audienceId);
  if (!span) return [];
  const parts = await Promise.all(
    idRanges(timeOfId(span.first), timeOfId(span.last), segments).map(async (range) => {
      const contacts: ContactRecord[] = [];
      for await (const page of audienceContactPages(accountId, audienceId, range, pageItems)) contacts.push(...page);
      return contacts;
    }),
  );
  return parts.flat();
}

/** `count` ranges of contact ids splitting [firstMs, lastMs] by time; the first and last are open, so no contact falls between. */
export function idRanges(firstMs: number, lastMs: number, count: number): ContactIdRange[] {
  const span = lastMs - firstMs + 1;
  const parts = Math.max(1, Math.min(count, span));
  const starts = Array.from({ length: parts }, (_, index) => firstMs + Math.floor((span * index) / parts));
  return starts.map((start, index) => ({
    ...(index === 0 ? {} : { from: idBoundAt('con', start, 'first') }),
    ...(index === parts - 1 ? {} : { to: idBoundAt('con', starts[index + 1]! - 1, 'last') }),
  }));
}

/** The audience's name as a file name: letters, digits, dashes and underscores only. */
function fileName(name: string): string {
  return (
    name
      .replace(/[^A-Za-z0-9_-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 64) || 'audience'
  );
}
