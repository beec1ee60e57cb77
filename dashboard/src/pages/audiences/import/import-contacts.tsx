/**
 * Importing contacts from a CSV file into an audience: choose the file, map
 * its columns (guessed from the headers), see the first rows as they will be
 * sent, then watch the import run batch by batch, and get the rows that
 * failed as a table and a CSV file. Parsing runs in a Web Worker (worker.ts).
 */
import { useQueryClient } from '@tanstack/react-query';
import Papa from 'papaparse';
import { memo, useEffect, useId, useMemo, useState, useSyncExternalStore } from 'react';
import { Label } from 'react-aria-components/Label';
import { ProgressBar } from 'react-aria-components/ProgressBar';
import { Action } from '../../../ui/fields.tsx';
import { TableScroll } from '../../../ui/page.tsx';
import { SelectField } from '../../../ui/select.tsx';
import {
  type ColumnMapping,
  CUSTOM_TYPES,
  type CustomType,
  FIELD_TARGETS,
  type FieldTarget,
  guessMapping,
  mappingProblem,
  rowToContact,
  TARGET_LABELS,
} from './mapping.ts';
import type { Row } from './messages.ts';
import { currentImport, ImportRun, type ImportState, previewFile, type RowError, subscribe } from './run.ts';

const PREVIEW_ROWS = 5;
/** The errors shown on the page; the CSV file has them all. */
const SHOWN_ERRORS = 100;

const TARGET_OPTIONS = FIELD_TARGETS.map((value) => ({ value, label: TARGET_LABELS[value] }));
const TYPE_OPTIONS = CUSTOM_TYPES.map((value) => ({ value, label: value === 'text' ? 'Text' : value === 'number' ? 'Number' : 'True or false' }));
const DUPLICATE_OPTIONS = [
  { value: 'update', label: 'Update them with the file’s values' },
  { value: 'skip', label: 'Leave them as they are' },
] as const;

export function ImportContacts({ audienceId }: { audienceId: string }) {
  const run = useSyncExternalStore(subscribe, () => currentImport(audienceId));
  const state = useSyncExternalStore(subscribe, () => run?.state);
  if (run && state) return <ImportProgress audienceId={audienceId} run={run} state={state} />;
  return <ChooseFile audienceId={audienceId} />;
}

interface Parsed {
  file: File;
  headers: string[];
  rows: Row[];
}

function ChooseFile({ audienceId }: { audienceId: string }) {
  const inputId = useId();
  const [parsed, setParsed] = useState<Parsed | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const [reading, setReading] = useState(false);

  async function choose(file: File | undefined) {
    setParsed(undefined);
    setProblem(undefined);
    if (!file) return;
    setReading(true);
    try {
      const preview = await previewFile(file, PREVIEW_ROWS);
      if (preview.headers.length === 0) setProblem('The file has no header row: its first line must name the columns.');
      else setParsed({ file, ...preview });
    } catch (error) {
      setProblem(error instanceof Error ? error.message : 'The file could not be read.');
    } finally {
      setReading(false);
    }
  }

  return (
    <div className="form import-form">
      <p>
        A CSV file whose first line names the columns: one must hold the email address; names, phone, tags (separated by commas or semicolons) and any other
        column, kept as a custom field, are optional. Cells are imported as text, never run as formulas.
      </p>
      <div className="field">
        <label htmlFor={inputId}>CSV file</label>
        <input id={inputId} type="file" accept=".csv,text/csv" onChange={(event) => void choose(event.currentTarget.files?.[0])} />
      </div>
      <div role="status">{reading ? <p>Reading the file…</p> : null}</div>
      {problem ? (
        <p className="notice notice-error" role="alert">
          {problem}
        </p>
      ) : null}
      {parsed ? <MapColumns key={`${parsed.file.name}-${parsed.file.size}-${parsed.file.lastModified}`} audienceId={audienceId} parsed={parsed} /> : null}
    </div>
  );
}

function MapColumns({ audienceId, parsed }: { audienceId: string; parsed: Parsed }) {
  const [mapping, setMapping] = useState<ColumnMapping[]>(() => guessMapping(parsed.headers));
  const [duplicates, setDuplicates] = useState<'update' | 'skip'>('update');
  const problem = mappingProblem(mapping);
  const preview = useMemo(() => parsed.rows.map((row) => rowToContact(row, mapping)), [parsed.rows, mapping]);
  const change = (at: number, patch: Partial<ColumnMapping>) =>
    setMapping((current) => current.map((column, index) => (index === at ? { ...column, ...patch } : column)));

  return (
    <>
      <h3>Columns</h3>
      <p className="muted">
        {parsed.file.name}: {parsed.headers.length} column{parsed.headers.length === 1 ? '' : 's'}. Each is guessed from its header; change what is wrong.
      </p>
      <div className="import-columns">
        {mapping.map((column, at) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a column is its position: headers may repeat or be blank, and the list never reorders.
          <div className="import-column" key={at}>
            <SelectField<FieldTarget>
              label={`Column “${column.header || `${at + 1}`}”`}
              name={`column-${at}`}
              value={column.target}
              options={TARGET_OPTIONS}
              onChange={(target) => change(at, { target })}
            />
            {column.target === 'custom' ? (
              <SelectField<CustomType>
                label={`Type of “${column.header}”`}
                name={`type-${at}`}
                value={column.type}
                options={TYPE_OPTIONS}
                onChange={(type) => change(at, { type })}
              />
            ) : null}
          </div>
        ))}
      </div>
      <SelectField
        label="Contacts already in the audience"
        name="duplicates"
        value={duplicates}
        options={DUPLICATE_OPTIONS}
        onChange={(value) => setDuplicates(value)}
      />
      <h3>Preview</h3>
      <p className="muted">The first {preview.length} rows as they will be sent.</p>
      <TableScroll label="Preview of the first rows">
        <table className="table">
          <thead>
            <tr>
              <th scope="col">Row</th>
              <th scope="col">Email</th>
              <th scope="col">First name</th>
              <th scope="col">Last name</th>
              <th scope="col">Phone</th>
              <th scope="col">Tags</th>
              <th scope="col">Custom fields</th>
            </tr>
          </thead>
          <tbody>
            {preview.map((mapped, at) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: the rows are a fixed slice of the file, in file order.
              <tr key={at}>
                <th scope="row">{at + 2}</th>
                {mapped.ok ? (
                  <>
                    <td>{mapped.contact.email}</td>
                    <td>{mapped.contact.firstName ?? ''}</td>
                    <td>{mapped.contact.lastName ?? ''}</td>
                    <td>{mapped.contact.phone ?? ''}</td>
                    <td>{(mapped.contact.tags ?? []).join(', ')}</td>
                    <td>
                      {Object.entries(mapped.contact.customFields ?? {})
                        .map(([key, value]) => `${key}: ${String(value)}`)
                        .join('; ')}
                    </td>
                  </>
                ) : (
                  <>
                    <td>{mapped.email}</td>
                    <td colSpan={5}>Not sent: {mapped.reason}</td>
                  </>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      {problem ? (
        <p className="notice notice-error" role="alert">
          {problem}
        </p>
      ) : null}
      <div className="page-actions">
        <Action variant="primary" isDisabled={problem !== undefined} onPress={() => ImportRun.start(audienceId, parsed.file, mapping, duplicates === 'skip')}>
          Import contacts
        </Action>
      </div>
    </>
  );
}

const STATUS_TEXT: Record<ImportState['status'], string> = {
  running: 'Importing…',
  waiting: 'Waiting…',
  cancelling: 'Stopping after the current batch…',
  cancelled: 'Import cancelled.',
  'signed-out': 'Paused: your session ended.',
  failed: 'The import stopped.',
  done: 'Import finished.',
};

function ImportProgress({ audienceId, run, state }: { audienceId: string; run: ImportRun; state: ImportState }) {
  const queryClient = useQueryClient();
  const finished = state.status === 'done' || state.status === 'cancelled';
  useEffect(() => {
    // The contacts, the audience's counts and statistics change with each batch: read again once it stops.
    if (finished) void queryClient.invalidateQueries({ queryKey: ['audiences'] });
    if (finished) void queryClient.invalidateQueries({ queryKey: ['contacts'] });
  }, [finished, queryClient]);
  const percent = Math.round(state.progress * 100);
  return (
    <div className="form import-form">
      <ProgressBar className="import-progress" value={percent}>
        {({ valueText }) => (
          <>
            <Label>Importing {state.fileName}</Label>
            <span className="import-percent">{valueText}</span>
            <span className="import-bar" aria-hidden="true">
              <span className="import-bar-fill" style={{ width: `${percent}%` }} />
            </span>
          </>
        )}
      </ProgressBar>
      <div role="status" className="import-status">
        <p>
          <strong>{STATUS_TEXT[state.status]}</strong> {state.rows.toLocaleString()} rows read: {state.imported.toLocaleString()} imported or updated,{' '}
          {state.skipped.toLocaleString()} skipped, {state.failed.toLocaleString()} failed.
        </p>
        {state.message ? <p>{state.message}</p> : null}
      </div>
      <div className="page-actions">
        {state.status === 'running' || state.status === 'waiting' ? <Action onPress={() => run.cancel()}>Cancel import</Action> : null}
        {state.status === 'signed-out' || state.status === 'failed' ? (
          <>
            <Action variant="primary" onPress={() => run.resume()}>
              Continue the import
            </Action>
            <Action onPress={() => run.cancel()}>Cancel import</Action>
          </>
        ) : null}
        {finished ? <Action onPress={() => ImportRun.clear(audienceId)}>Import another file</Action> : null}
      </div>
      {state.errors.length > 0 ? (
        <ErrorRows errors={state.errors} count={state.errors.length} settled={!BUSY.has(state.status)} fileName={state.fileName} />
      ) : null}
    </div>
  );
}

/** While a batch is being read or sent: the list of bad rows still grows. */
const BUSY: ReadonlySet<ImportState['status']> = new Set(['running', 'waiting', 'cancelling']);

interface ErrorRowsProps {
  /** Appended in place by the import: `count` is what changes when it grows. */
  errors: readonly RowError[];
  count: number;
  /** Whether the import has stopped or paused, so the file of every bad row can be written once, not after each batch. */
  settled: boolean;
  fileName: string;
}

const ErrorRows = memo(function ErrorRows({ errors, count, settled, fileName }: ErrorRowsProps) {
  const [href, setHref] = useState<string | undefined>();
  useEffect(() => {
    setHref(undefined);
    if (!settled || count === 0) return;
    // Formula-looking cells are written as they came: the file is data for a person to read, the dashboard evaluates nothing.
    const csv = Papa.unparse({ fields: ['row', 'email', 'reason'], data: errors.slice(0, count).map((error) => [error.row, error.email, error.reason]) });
    const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv;charset=utf-8' }));
    setHref(url);
    return () => URL.revokeObjectURL(url);
  }, [errors, count, settled]);
  const shown = errors.slice(0, Math.min(count, SHOWN_ERRORS));
  return (
    <>
      <h3>Rows not imported</h3>
      <p>
        {count.toLocaleString()} row{count === 1 ? '' : 's'} not imported
        {count > shown.length ? ` (the first ${shown.length} below)` : ''}.{' '}
        {href ? (
          <a href={href} download={`${fileName.replace(/\.csv$/i, '')}-errors.csv`}>
            Download the errors as CSV
          </a>
        ) : settled ? null : (
          'The list of all of them can be downloaded once the import stops.'
        )}
      </p>
      <TableScroll label="Rows not imported">
        <table className="table">
          <thead>
            <tr>
              <th scope="col">Row</th>
              <th scope="col">Email</th>
              <th scope="col">Reason</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((error) => (
              <tr key={`${error.row}-${error.reason}`}>
                <th scope="row">{error.row}</th>
                <td>{error.email}</td>
                <td>{error.reason}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
    </>
  );
});
