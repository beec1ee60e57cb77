/**
 * Rows to CSV text with papaparse, in a module of its own: loaded on the
 * first export only, and named so its chunk is `csv-writer-<hash>.js` (an
 * import of `papaparse` itself would name it `papaparse.min-…`, which the
 * asset server's file-name rule refuses).
 */
import Papa from 'papaparse';

/**
 * RFC 4180 text, CRLF lines. Values come from anyone who filled the public
 * form: `escapeFormulae` puts `'` before a cell starting with = + - @ (or
 * tab, CR), so a spreadsheet shows it instead of running it (OWASP's advice
 * against CSV injection).
 */
export function writeCsv(rows: readonly (readonly string[])[]): string {
  return `${Papa.unparse(rows as string[][], { escapeFormulae: true, newline: '\r\n' })}\r\n`;
}
