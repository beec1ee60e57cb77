/**
 * Submissions as a table and as a CSV file: a column per field of the form,
 * in its order, then any key a submission holds that the form no longer has
 * (a field removed since).
 */
import type { paths } from '../../api/client.ts';

export type Submission = paths['/api/forms/{id}/submissions']['get']['responses']['200']['content']['application/json']['submissions'][number];
export interface Column {
  id: string;
  label: string;
}

export function columnsOf(fields: readonly { id: string; label: string }[], rows: readonly Submission[]): Column[] {
  const known = new Set(fields.map((field) => field.id));
  const extra = [...new Set(rows.flatMap((row) => Object.keys(row.data)))].filter((key) => !known.has(key)).sort();
  return [...fields.map(({ id, label }) => ({ id, label })), ...extra.map((id) => ({ id, label: id }))];
}

/** A value as text: checkboxes joined by `; `, a file by its name. */
export function cellText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (Array.isArray(value)) return value.map(cellText).join('; ');
  if (typeof value === 'object') return 'filename' in value ? String(value.filename) : JSON.stringify(value);
  return String(value);
}

/** The CSV: `id`, `createdAt`, then the columns headed by their keys; formulas neutralised (csv-writer.ts). */
export async function submissionsCsv(columns: readonly Column[], rows: readonly Submission[]): Promise<string> {
  const { writeCsv } = await import('./csv-writer.ts');
  const header = ['id', 'createdAt', ...columns.map((column) => column.id)];
  return writeCsv([header, ...rows.map((row) => [row.id, row.createdAt, ...columns.map((column) => cellText(row.data[column.id]))])]);
}

/** Hands `text` to the browser as a download, from memory: nothing leaves the page. */
export function downloadCsv(filename: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  // After the click has handed the file over.
  setTimeout(() => URL.revokeObjectURL(url), 1_000);
}
