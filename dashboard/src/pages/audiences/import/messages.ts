/** What the page and the parsing worker (worker.ts) say to each other. */

export type Row = Record<string, string | undefined>;

export type ToWorker =
  /** The header and the first rows, for the mapping and its preview. */
  | { type: 'preview'; file: File; rows: number }
  /** Every row, `batch` at a time: the worker waits for `next` before reading on. */
  | { type: 'start'; file: File; batch: number }
  | { type: 'next' };

export type FromWorker =
  | { type: 'preview'; headers: string[]; rows: Row[] }
  /**
   * Rows in file order; `first` is the row number in the file of rows[0] (the
   * header is row 1); `read` how many characters of the file are parsed.
   * `last` when the file has no more rows.
   */
  | { type: 'rows'; rows: Row[]; first: number; read: number; last: boolean }
  | { type: 'error'; message: string };
