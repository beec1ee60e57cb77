/**
 * The CSV parser and the rows' check, in a Web Worker so a file of 100,000
 * rows never freezes the page (built as its own file by dashboard/build.ts).
 * The file is streamed with papaparse's `step`: one batch of rows is held at
 * a time, mapped to contacts here (rowToContact, the API's own schema), and
 * the worker pauses until the page has sent it, so neither side holds the
 * whole file and the page's thread only posts batches that are ready.
 * It only parses: cells stay text, nothing in them is evaluated.
 */
import Papa, { type Parser } from 'papaparse';
import { type ColumnMapping, type ImportContact, rowToContact } from './mapping.ts';
import type { FromWorker, Row, RowError, ToWorker } from './messages.ts';

const send = (message: FromWorker): void => self.postMessage(message);

let parser: Parser | undefined;

function readHeaders(file: File, rows: number): void {
  Papa.parse<Row>(file, {
    header: true,
    skipEmptyLines: 'greedy',
    preview: rows,
    complete: (results) => send({ type: 'preview', headers: results.meta.fields ?? [], rows: results.data }),
    error: (error) => send({ type: 'error', message: `The file could not be read: ${error.message}` }),
  });
}

function readRows(file: File, size: number, mapping: readonly ColumnMapping[]): void {
  let contacts: ImportContact[] = [];
  let rowNumbers: number[] = [];
  let errors: RowError[] = [];
  // The header is row 1; a row spanning lines (a quoted line break) counts once.
  let next = 2;
  let rows = 0;
  const flush = (read: number, last: boolean) => {
    send({ type: 'batch', contacts, rowNumbers, errors, rows, read, last });
    contacts = [];
    rowNumbers = [];
    errors = [];
    rows = 0;
  };
  Papa.parse<Row>(file, {
    header: true,
    skipEmptyLines: 'greedy',
    step: (results, current) => {
      const mapped = rowToContact(results.data, mapping);
      if (mapped.ok) {
        contacts.push(mapped.contact);
        rowNumbers.push(next);
      } else errors.push({ row: next, email: mapped.email, reason: mapped.reason });
      next++;
      rows++;
      if (rows < size) return;
      parser = current;
      current.pause();
      flush(results.meta.cursor, false);
    },
    complete: () => flush(file.size, true),
    error: (error) => send({ type: 'error', message: `The file could not be read: ${error.message}` }),
  });
}

self.addEventListener('message', (event: MessageEvent<ToWorker>) => {
  const message = event.data;
  if (message.type === 'preview') readHeaders(message.file, message.rows);
  else if (message.type === 'start') readRows(message.file, message.batch, message.mapping);
  else parser?.resume();
});
