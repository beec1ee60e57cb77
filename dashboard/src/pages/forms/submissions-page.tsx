/**
 * A form's submissions (/forms/:id/submissions): a table, one column per
 * field, newest first, filtered by day (from, to: UTC days, as the API takes
 * them) and exported to CSV: every page of the filtered list read from the
 * API, written here and downloaded as a file.
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { listSubmissionsQuery } from '#shared/forms/schema.ts';
import { api, call } from '../../api/client.ts';
import { asApiError, type ApiError } from '../../api/errors.ts';
import type { PageProps } from '../../routes.tsx';
import { AppLink } from '../../ui/app-link.tsx';
import { Action, ApiForm, FormError, TextInput } from '../../ui/fields.tsx';
import { Empty, PageHeader, QueryView, Section, TableScroll, Time } from '../../ui/page.tsx';
import { checkInput } from '../../ui/use-form-submit.ts';
import { cellText, columnsOf, downloadCsv, submissionsCsv, type Column, type Submission } from './csv.ts';
import { NEWEST_FIRST, NumberedPager } from '../../ui/pager.tsx';

const PAGE_SIZE = 50;
/** The API's largest page: the export reads as few pages as it can. */
const EXPORT_PAGE = 100;

interface Range {
  startDate?: string;
  endDate?: string;
}

function RangeFilter({ onApply }: { onApply: (range: Range) => void }) {
  const [values, setValues] = useState({ startDate: '', endDate: '' });
  const [problem, setProblem] = useState<ApiError>();
  const apply = (next: typeof values) => {
    const chosen: Range = Object.fromEntries(Object.entries(next).flatMap(([name, value]) => (value.trim() ? [[name, value.trim()]] : [])));
    const issue = checkInput(listSubmissionsQuery, chosen);
    setProblem(issue);
    if (!issue) onApply(chosen);
  };
  return (
    <ApiForm className="filters" label="Filter submissions" errors={problem?.field ? { [problem.field]: problem.message } : {}} onSubmit={() => apply(values)}>
      <TextInput label="From date" name="startDate" type="date" value={values.startDate} onChange={(startDate) => setValues({ ...values, startDate })} />
      <TextInput label="To date" name="endDate" type="date" value={values.endDate} onChange={(endDate) => setValues({ ...values, endDate })} />
      <div className="filters-actions">
        <Action type="submit" variant="primary">
          Apply filters
        </Action>
        <Action
          variant="quiet"
          onPress={() => {
            setValues({ startDate: '', endDate: '' });
            apply({ startDate: '', endDate: '' });
          }}
        >
          Clear
        </Action>
      </div>
      <FormError error={problem && !problem.field ? problem : undefined} />
    </ApiForm>
  );
}

function Export({ id, slug, range, columns }: { id: string; slug: string; range: Range; columns: (rows: readonly Submission[]) => Column[] }) {
  const [state, setState] = useState<{ busy: boolean; rows?: number; error?: ApiError }>({ busy: false });
  const run = async () => {
    setState({ busy: true });
    try {
      const rows: Submission[] = [];
      for (let page = 1; ; page++) {
        const { submissions, pagination } = await call(
          api.GET('/api/forms/{id}/submissions', { params: { path: { id }, query: { ...range, page: String(page), limit: String(EXPORT_PAGE) } } }),
        );
        rows.push(...submissions);
        if (page >= pagination.pages) break;
      }
      downloadCsv(`${slug}-submissions.csv`, await submissionsCsv(columns(rows), rows));
      setState({ busy: false, rows: rows.length });
    } catch (error) {
      setState({ busy: false, error: asApiError(error) });
    }
  };
  return (
    <div className="row-actions">
      <Action busy={state.busy} onPress={() => void run()}>
        {state.busy ? 'Exporting…' : 'Export to CSV'}
      </Action>
      <span role="status">{state.rows === undefined ? '' : `${state.rows.toLocaleString()} ${state.rows === 1 ? 'submission' : 'submissions'} exported.`}</span>
      <FormError error={state.error} />
    </div>
  );
}

function Submissions({ id, slug, columns }: { id: string; slug: string; columns: (rows: readonly Submission[]) => Column[] }) {
  const [range, setRange] = useState<Range>({});
  const [page, setPage] = useState(1);
  const submissions = useQuery({
    queryKey: ['forms', id, 'submissions', range, page],
    queryFn: () =>
      call(api.GET('/api/forms/{id}/submissions', { params: { path: { id }, query: { ...range, page: String(page), limit: String(PAGE_SIZE) } } })),
    placeholderData: keepPreviousData,
  });
  const shown = columns(submissions.data?.submissions ?? []);
  return (
    <>
      <RangeFilter
        onApply={(next) => {
          setRange(next);
          setPage(1);
        }}
      />
      <Section title="Submissions" actions={<Export id={id} slug={slug} range={range} columns={columns} />}>
        <QueryView query={submissions} label="Submissions">
          {({ submissions: list, pagination }) =>
            list.length === 0 ? (
              <Empty>{range.startDate || range.endDate ? 'No submission in these days.' : 'No submission yet.'}</Empty>
            ) : (
              <>
                <TableScroll label="Submissions, newest first">
                  <table className="table">
                    <caption className="visually-hidden">Submissions, newest first</caption>
                    <thead>
                      <tr>
                        <th scope="col">Received</th>
                        {shown.map((column) => (
                          <th scope="col" key={column.id}>
                            {column.label}
                          </th>
                        ))}
                      </tr>
                    </thead>
                    <tbody>
                      {list.map((submission) => (
                        <tr key={submission.id}>
                          <th scope="row">
                            <Time value={submission.createdAt} />
                          </th>
                          {shown.map((column) => (
                            <td key={column.id} className="cell-wrap">
                              {cellText(submission.data[column.id])}
                            </td>
                          ))}
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </TableScroll>
                <NumberedPager label="Pages of submissions" page={page} pages={pagination.pages} onPage={setPage} names={NEWEST_FIRST} hideSinglePage />
              </>
            )
          }
        </QueryView>
      </Section>
    </>
  );
}

export default function SubmissionsPage({ params }: PageProps) {
  const id = params.id!;
  const form = useQuery({
    queryKey: ['forms', id],
    queryFn: () => call(api.GET('/api/forms/{id}', { params: { path: { id } } })),
  });
  const title = form.data ? `Submissions: ${form.data.data.title}` : 'Submissions';
  return (
    <>
      <PageHeader title={title}>
        <AppLink href={`/forms/${encodeURIComponent(id)}`} className="button button-secondary">
          Edit form
        </AppLink>
        <AppLink href="/forms" className="button button-quiet">
          All forms
        </AppLink>
      </PageHeader>
      <QueryView query={form} label="The form">
        {({ data }) => <Submissions id={id} slug={data.slug} columns={(rows) => columnsOf(data.fields, rows)} />}
      </QueryView>
    </>
  );
}
