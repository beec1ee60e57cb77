/**
 * An import in progress, outside React: the worker parses a batch, maps it
 * and reports the rows it can already tell are bad; the page sends the rest
 * to POST /api/contacts/bulk, one request at a time, then asks for the next
 * batch. The page's thread does little more than send: a long import keeps
 * the page responsive. Kept in module state by audience, so a session that
 * ends mid-import (the page gives way to sign-in) keeps its counts and the
 * batch it was sending, and continues from there once the person is back.
 */
import { CONTACT_LIMITS } from '#shared/contacts/schema.ts';
import { api, call } from '../../../api/client.ts';
import { asApiError } from '../../../api/errors.ts';
import type { ColumnMapping, ImportContact } from './mapping.ts';
import type { FromWorker, Row, RowError, ToWorker } from './messages.ts';

export type { RowError };

/** The served path of the built worker (dashboard/build.ts defines it). */
declare const IMPORT_WORKER_URL: string;

/** Contacts per request: the endpoint's maximum. */
export const IMPORT_BATCH = CONTACT_LIMITS.bulkContacts;

export type ImportStatus = 'running' | 'waiting' | 'cancelling' | 'cancelled' | 'signed-out' | 'failed' | 'done';

export interface ImportState {
  fileName: string;
  status: ImportStatus;
  /** Parsed share of the file, 0 to 1, counting the rows already sent. */
  progress: number;
  rows: number;
  imported: number;
  skipped: number;
  failed: number;
  /**
   * Every row not imported, in the order found. Appended in place (copying a
   * list of many bad rows on every batch would cost the page more each time):
   * `failed` changes with it, and a new state object is made for each change.
   */
  errors: readonly RowError[];
  /** Why the import stopped or waits (a refusal, a 429's wait). */
  message: string | undefined;
}

interface Batch {
  contacts: ImportContact[];
  rowNumbers: number[];
  read: number;
  last: boolean;
}

const runs = new Map<string, ImportRun>();
const listeners = new Set<() => void>();
let notifying = false;

/** Tells the listeners (React) at most once a frame: the changes of a batch are shown together, in one render. */
function notify(): void {
  if (notifying) return;
  notifying = true;
  requestAnimationFrame(() => {
    notifying = false;
    for (const listener of listeners) listener();
  });
}

export function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function currentImport(audienceId: string): ImportRun | undefined {
  return runs.get(audienceId);
}

/** Starts a worker and hands it its first message. */
function startWorker(first: ToWorker, onMessage: (message: FromWorker) => void): Worker {
  const worker = new Worker(IMPORT_WORKER_URL, { name: 'csv-import' });
  worker.addEventListener('message', (event: MessageEvent<FromWorker>) => onMessage(event.data));
  worker.addEventListener('error', () => onMessage({ type: 'error', message: 'The file could not be read.' }));
  worker.postMessage(first);
  return worker;
}

/** The header and first rows of `file`, parsed off the page's thread. */
export function previewFile(file: File, rows: number): Promise<{ headers: string[]; rows: Row[] }> {
  return new Promise((resolve, reject) => {
    const worker = startWorker({ type: 'preview', file, rows }, (message) => {
      worker.terminate();
      if (message.type === 'preview') resolve({ headers: message.headers, rows: message.rows });
      else reject(new Error(message.type === 'error' ? message.message : 'The file could not be read.'));
    });
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class ImportRun {
  state: ImportState;
  private readonly worker: Worker;
  /** The batch being sent, kept until the API has answered for it. */
  private pending: Batch | undefined;
  private readonly size: number;
  private readonly errors: RowError[] = [];

  constructor(
    private readonly audienceId: string,
    file: File,
    mapping: readonly ColumnMapping[],
    private readonly skipDuplicates: boolean,
  ) {
    this.size = file.size;
    this.state = { fileName: file.name, status: 'running', progress: 0, rows: 0, imported: 0, skipped: 0, failed: 0, errors: this.errors, message: undefined };
    this.worker = startWorker({ type: 'start', file, batch: IMPORT_BATCH, mapping }, (message) => void this.received(message));
  }

  private update(change: Partial<ImportState>): void {
    this.state = { ...this.state, ...change };
    notify();
  }

  /** Rows not imported, added to the list in place. */
  private addErrors(errors: readonly RowError[]): void {
    for (const error of errors) this.errors.push(error);
  }

  private async received(message: FromWorker): Promise<void> {
    if (message.type === 'error') return this.stop('failed', message.message);
    if (message.type !== 'batch') return;
    this.addErrors(message.errors);
    this.update({ rows: this.state.rows + message.rows, failed: this.state.failed + message.errors.length });
    this.pending = { contacts: message.contacts, rowNumbers: message.rowNumbers, read: Math.min(message.read, this.size), last: message.last };
    await this.send();
  }

  /** Sends the pending batch until the API answers it, waiting out a 429; then asks the worker for more. */
  private async send(): Promise<void> {
    const batch = this.pending;
    if (!batch) return;
    while (batch.contacts.length > 0) {
      try {
        const result = await call(
          api.POST('/api/contacts/bulk', { body: { audienceId: this.audienceId, contacts: batch.contacts, skipDuplicates: this.skipDuplicates } }),
        );
        const errors = result.errors.map((error) => ({
          row: batch.rowNumbers[error.index] ?? 0,
          email: typeof error.email === 'string' ? error.email : (batch.contacts[error.index]?.email ?? ''),
          reason: error.message,
        }));
        this.addErrors(errors);
        this.update({
          imported: this.state.imported + result.imported,
          skipped: this.state.skipped + result.skipped,
          failed: this.state.failed + result.failed,
        });
        break;
      } catch (thrown) {
        const error = asApiError(thrown);
        if (error.status === 429) {
          const seconds = error.retryAfter ?? 1;
          this.update({ status: 'waiting', message: `The API asked to slow down: continuing in ${seconds} second${seconds === 1 ? '' : 's'}.` });
          await sleep(seconds * 1000);
          if (this.state.status !== 'waiting') return;
          this.update({ status: 'running', message: undefined });
          continue;
        }
        // The batch stays pending: continuing (after signing in again, or once the service is back) sends it again.
        if (error.status === 401) return this.update({ status: 'signed-out', message: 'Your session ended. Sign in again to continue the import.' });
        return this.update({ status: 'failed', message: error.message });
      }
    }
    this.pending = undefined;
    this.update({ progress: batch.last ? 1 : batch.read / Math.max(batch.read, 1, this.size) });
    if (batch.last) return this.stop('done');
    if (this.state.status === 'cancelling') return this.stop('cancelled');
    this.worker.postMessage({ type: 'next' } satisfies ToWorker);
  }

  private stop(status: 'done' | 'cancelled' | 'failed', message?: string): void {
    this.worker.terminate();
    this.pending = undefined;
    this.update({ status, message });
  }

  /** Stops once the batch being sent is answered; at once when nothing is being sent. */
  cancel(): void {
    const { status } = this.state;
    // A batch in flight is let finish, so its counts are known; a wait for a 429 or a pause has nothing in flight.
    if (status === 'running' && this.pending) this.update({ status: 'cancelling' });
    else if (status === 'running' || status === 'waiting' || status === 'signed-out' || status === 'failed') this.stop('cancelled');
  }

  /** After signing in again, or a failure: sends the batch that was not answered, and goes on. */
  resume(): void {
    if (this.state.status !== 'signed-out' && this.state.status !== 'failed') return;
    if (!this.pending) return;
    this.update({ status: 'running', message: undefined });
    void this.send();
  }

  get finished(): boolean {
    return this.state.status === 'done' || this.state.status === 'cancelled' || (this.state.status === 'failed' && !this.pending);
  }

  static start(audienceId: string, file: File, mapping: readonly ColumnMapping[], skipDuplicates: boolean): ImportRun {
    const run = new ImportRun(audienceId, file, mapping, skipDuplicates);
    runs.set(audienceId, run);
    notify();
    return run;
  }

  /** Forgets a finished import, for the next file. */
  static clear(audienceId: string): void {
    const run = runs.get(audienceId);
    if (run && !run.finished) return;
    runs.delete(audienceId);
    notify();
  }
}
