/** What the page and the parsing worker (worker.ts) say to each other. */
import type { ColumnMapping, ImportContact } from './mapping.ts';

export type Row = Record<string, string | undefined>;

/** A row the import did not take: refused by the worker's check, or by the API. */
export interface RowError {
  /** The row number in the file, the header being row 1. */
  row: number;
  email: string;
  reason: string;
}

export type ToWorker =
  /** The header and the first rows, for the mapping and its preview. */
  | { type: 'preview'; file: File; rows: number }
  /** Every row, `batch` at a time, mapped with `mapping`: the worker waits for `next` before reading on. */
  | { type: 'start'; file: File; batch: number; mapping: readonly ColumnMapping[] }
  | { type: 'next' };

export type FromWorker =
  | { type: 'preview'; headers: string[]; rows: Row[] }
  /**
   * The next `rows` rows of the file, mapped: the contacts ready to send, in
   * file order, with each one's row number in the file (the header is row 1),
   * and the rows refused before sending. `read`: how many characters of the
   * file are parsed. `last` when the file has no more rows.
   */
  | { type: 'batch'; contacts: ImportContact[]; rowNumbers: number[]; errors: RowError[]; rows: number; read: number; last: boolean }
  | { type: 'error'; message: string };
