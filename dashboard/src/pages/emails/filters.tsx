/**
 * The message log's filters, kept in the address (`?status=bounced&to=…`), so
 * a filtered view can be reloaded, bookmarked and sent to a colleague. They are
 * checked with the API's own query schema before the address changes.
 */
import { useState } from 'react';
import { listEmailsQuery } from '#shared/messages/schema.ts';
import type { ApiError } from '../../api/errors.ts';
import { ApiForm, Action, FormError, TextInput } from '../../ui/fields.tsx';
import { SelectField } from '../../ui/select.tsx';
import { checkInput } from '../../ui/use-form-submit.ts';

export const FILTERS = ['status', 'to', 'startDate', 'endDate', 'broadcastId'] as const;
export type Filters = Partial<Record<(typeof FILTERS)[number], string>>;

const STATUSES = listEmailsQuery.entries.status.wrapped.options;
const STATUS_OPTIONS = [{ value: '', label: 'Any status' }, ...STATUSES.map((status) => ({ value: status, label: status }))];

export function filtersOf(query: URLSearchParams): Filters {
  return Object.fromEntries(FILTERS.flatMap((name) => (query.get(name) ? [[name, query.get(name)!]] : [])));
}

export function EmailFilters({ initial, onApply }: { initial: Filters; onApply: (filters: Filters) => void }) {
  const [values, setValues] = useState<Required<Filters>>({ status: '', to: '', startDate: '', endDate: '', broadcastId: '', ...initial });
  const [problem, setProblem] = useState<ApiError | undefined>();
  const set = (name: keyof Filters) => (value: string) => setValues({ ...values, [name]: value });
  const apply = () => {
    const chosen = Object.fromEntries(Object.entries(values).flatMap(([name, value]) => (value.trim() ? [[name, value.trim()]] : [])));
    const issue = checkInput(listEmailsQuery, chosen);
    setProblem(issue);
    if (!issue) onApply(chosen);
  };
  return (
    <ApiForm className="filters" label="Filter emails" errors={problem?.field ? { [problem.field]: problem.message } : {}} onSubmit={() => apply()}>
      <SelectField label="Status" name="status" value={values.status} onChange={set('status')} options={STATUS_OPTIONS} />
      <TextInput label="Recipient" name="to" type="email" value={values.to} onChange={set('to')} placeholder="ann@example.com" />
      <TextInput label="From date" name="startDate" type="date" value={values.startDate} onChange={set('startDate')} />
      <TextInput label="To date" name="endDate" type="date" value={values.endDate} onChange={set('endDate')} />
      <TextInput label="Broadcast" name="broadcastId" value={values.broadcastId} onChange={set('broadcastId')} placeholder="bro_…" />
      <div className="filters-actions">
        <Action type="submit" variant="primary">
          Apply filters
        </Action>
        <Action
          variant="quiet"
          onPress={() => {
            setValues({ status: '', to: '', startDate: '', endDate: '', broadcastId: '' });
            setProblem(undefined);
            onApply({});
          }}
        >
          Clear
        </Action>
      </div>
      <FormError error={problem && !problem.field ? problem : undefined} />
    </ApiForm>
  );
}
