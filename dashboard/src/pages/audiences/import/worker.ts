/**
 * The CSV parser, in a Web Worker so a file of 100,000 rows never freezes the
 * page (built as its own file by dashboard/build.ts). The file is streamed
 * with papaparse's `step`: one batch of rows is held at a time, and the worker
 * pauses until the page has sent it, so neither side holds the whole file.
 * It only parses: cells stay text, nothing in them is evaluated.
 */
import Papa, { type Parser } from 'papaparse';
import type { FromWorker, Row, ToWorker } from './messages.ts';

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

function readRows(file: File, size: number): void {
  let batch: Row[] = [];
  // The header is row 1; a row spanning lines (a quoted line break) counts once.
  let next = 2;
  let read = 0;
  Papa.parse<Row>(file, {
    header: true,
    skipEmptyLines: 'greedy',
    step: (results, current) => {
      batch.push(results.data);
      read = results.meta.cursor;
      if (batch.length < size) return;
      parser = current;
      current.pause();
      send({ type: 'rows', rows: batch, first: next, read, last: false });
      next += batch.length;
      batch = [];
    },
    complete: () => send({ type: 'rows', rows: batch, first: next, read: file.size, last: true }),
    error: (error) => send({ type: 'error', message: `The file could not be read: ${error.message}` }),
  });
}

self.addEventListener('message', (event: MessageEvent<ToWorker>) => {
  const message = event.data;
  if (message.type === 'preview') readHeaders(message.file, message.rows);
  else if (message.type === 'start') readRows(message.file, message.batch);
  else parser?.resume();
});
