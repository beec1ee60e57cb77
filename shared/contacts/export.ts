/**
 * Exporting an audience to CSV: the server reads the audience's contacts (one
 * Query of its partition, page after page, never a scan), writes the file to
 * the region's attachments bucket under `exports/<account>/`, and answers a
 * short-lived presigned link to it, so a browser downloads 100,000 contacts
 * without paging through the API. Synchronous, within the request, up to
 * EXPORT_MAX_CONTACTS (docs/api.md, "Exporting an audience").
 */
import { ConflictError, notFound } from '#shared/platform/errors.ts';
import { getAudienceRecord } from '#shared/audiences/service.ts';
import { attachmentsBucketObject } from '#shared/attachments/service.ts';
import { presignGet, putObject } from '#shared/platform/aws/s3.ts';
import { newId } from '#shared/platform/ids.ts';
import { findById } from '#shared/platform/lookup.ts';
import { audienceContactPages, type ContactRecord } from './store.ts';
import { EXPORT_LINK_SECONDS, EXPORT_MAX_CONTACTS, EXPORTS_PREFIX } from './export-policy.ts';

/** `exports/acc_…/aud_…/exp_….csv`: the account first, so a key of one account can never name another's file. */
export const exportObjectKey = (accountId: string, audienceId: string, exportId: string) => `${EXPORTS_PREFIX}${accountId}/${audienceId}/${exportId}.csv`;

export interface AudienceExport {
  id: string;
  status: 'ready';
  rows: number;
  url: string;
  expiresAt: string;
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

export const exportTooLarge = (max = EXPORT_MAX_CONTACTS) =>
  new ConflictError('EXPORT_TOO_LARGE', `An audience of more than ${max.toLocaleString('en-US')} contacts cannot be exported in one request yet`);

/**
 * Writes the audience's contacts to a CSV in the bucket and answers a link to
 * it, valid EXPORT_LINK_SECONDS. An audience whose count (the maintained
 * counter, read with it) passes `max` is refused before anything is read.
 */
export async function exportAudience(accountId: string, audienceId: string, now: Date, max = EXPORT_MAX_CONTACTS): Promise<AudienceExport> {
  const audience = await findById('aud', audienceId, () => getAudienceRecord(accountId, audienceId), notFound.audience);
  if (audience.counters.count > max) throw exportTooLarge(max);
  const contacts: ContactRecord[] = [];
  for await (const page of audienceContactPages(accountId, audienceId)) contacts.push(...page);
  const id = newId('exp', now.getTime());
  const location = attachmentsBucketObject(exportObjectKey(accountId, audienceId, id));
  await putObject(location, Buffer.from(contactsCsv(contacts)), 'text/csv; charset=utf-8');
  const link = await presignGet(location, { expiresInSeconds: EXPORT_LINK_SECONDS, downloadAs: `${fileName(audience.audience.name)}.csv` });
  return { id, status: 'ready', rows: contacts.length, url: link.url, expiresAt: link.expiresAt.toISOString(), createdAt: now.toISOString() };
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
