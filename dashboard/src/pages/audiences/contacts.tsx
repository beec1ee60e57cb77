/**
 * An audience's contacts: searched (part of the address or a name), filtered
 * by status and tag, newest first, a page at a time as the API numbers them.
 * The filters and the page live in the address, so a view can be reloaded or
 * sent to a colleague; they are checked with the API's own query schema.
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { listContactsQuery } from '#shared/contacts/schema.ts';
import { api, call } from '../../api/client.ts';
import type { ApiError } from '../../api/errors.ts';
import { navigate, useLocation } from '../../router.ts';
import { AppLink } from '../../ui/app-link.tsx';
import { Action, ApiForm, FormError, TextInput } from '../../ui/fields.tsx';
import { Empty, QueryView, TableScroll, Time } from '../../ui/page.tsx';
import { SelectField } from '../../ui/select.tsx';
import { checkInput } from '../../ui/use-form-submit.ts';
import { CONTACT_STATUSES, ContactStatusBadge } from './contact-status.tsx';
import { NumberedPager, pageOf } from '../../ui/pager.tsx';

const PAGE_SIZE = 25;
const FILTERS = ['search', 'status', 'tag'] as const;
type Filters = Partial<Record<(typeof FILTERS)[number], string>>;

const STATUS_OPTIONS = [{ value: '', label: 'Any status' }, ...CONTACT_STATUSES.map((status) => ({ value: status, label: status }))];

function filtersOf(query: URLSearchParams): Filters {
  return Object.fromEntries(FILTERS.flatMap((name) => (query.get(name) ? [[name, query.get(name)!]] : [])));
}

function addressOf(audienceId: string, filters: Filters, page = 1): string {
  const query = new URLSearchParams({ ...filters, ...(page > 1 ? { page: String(page) } : {}) }).toString();
  return `/audiences/${encodeURIComponent(audienceId)}${query ? `?${query}` : ''}`;
}

function ContactFilters({ initial, onApply }: { initial: Filters; onApply: (filters: Filters) => void }) {
  const [values, setValues] = useState<Required<Filters>>({ search: '', status: '', tag: '', ...initial });
  const [problem, setProblem] = useState<ApiError | undefined>();
  const set = (name: keyof Filters) => (value: string) => setValues({ ...values, [name]: value });
  return (
    <ApiForm
      className="filters"
      label="Find contacts"
      errors={problem?.field ? { [problem.field]: problem.message } : {}}
      onSubmit={() => {
        const chosen = Object.fromEntries(Object.entries(values).flatMap(([name, value]) => (value.trim() ? [[name, value.trim()]] : [])));
        const issue = checkInput(listContactsQuery, chosen);
        setProblem(issue);
        if (!issue) onApply(chosen);
      }}
    >
      <TextInput label="Search" name="search" type="search" value={values.search} onChange={set('search')} placeholder="Address or name" />
      <SelectField label="Status" name="status" value={values.status} onChange={set('status')} options={STATUS_OPTIONS} />
      <TextInput label="Tag" name="tag" value={values.tag} onChange={set('tag')} placeholder="vip" />
      <div className="filters-actions">
        <Action type="submit" variant="primary">
          Find
        </Action>
        <Action
          variant="quiet"
          onPress={() => {
            setValues({ search: '', status: '', tag: '' });
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

/**
 * The page of contacts the address asks for. The audience's page calls it too,
 * at once, so this request starts beside the audience's own rather than after
 * it (one request: the same key).
 */
export function useContactsPage(audienceId: string) {
  const { query } = useLocation();
  const filters = filtersOf(query);
  const page = pageOf(query);
  const contacts = useQuery({
    queryKey: ['contacts', audienceId, filters, page],
    queryFn: () =>
      call(
        api.GET('/api/contacts', {
          params: { query: { audienceId, ...(filters as Record<string, string>), page: String(page), limit: String(PAGE_SIZE) } as never },
        }),
      ),
    placeholderData: keepPreviousData,
  });
  return { contacts, filters };
}

export function AudienceContacts({ audienceId }: { audienceId: string }) {
  const { contacts, filters } = useContactsPage(audienceId);
  const filtered = Object.keys(filters).length > 0;
  return (
    <>
      <ContactFilters key={JSON.stringify(filters)} initial={filters} onApply={(chosen) => navigate(addressOf(audienceId, chosen), { replace: true })} />
      <QueryView query={contacts} label="Contacts">
        {({ contacts: rows, pagination }) => (
          <>
            <p className="muted" role="status">
              {filtered
                ? `${pagination.total.toLocaleString()}${pagination.truncated ? ' or more' : ''} matching`
                : `${pagination.total.toLocaleString()} contacts`}
            </p>
            {rows.length === 0 ? (
              <Empty>{filtered ? 'No contact matches.' : 'No contact yet. Add contacts through the API or import them.'}</Empty>
            ) : (
              <TableScroll label="Contacts">
                <table className="table">
                  <caption className="visually-hidden">Contacts of the audience, newest first</caption>
                  <thead>
                    <tr>
                      <th scope="col">Address</th>
                      <th scope="col">Name</th>
                      <th scope="col">Status</th>
                      <th scope="col">Tags</th>
                      <th scope="col">Added</th>
                    </tr>
                  </thead>
                  <tbody>
                    {rows.map((contact) => (
                      <tr key={contact.id}>
                        <th scope="row">
                          <AppLink href={`/audiences/${encodeURIComponent(audienceId)}/contacts/${encodeURIComponent(contact.id)}`}>{contact.email}</AppLink>
                        </th>
                        <td>{[contact.firstName, contact.lastName].filter(Boolean).join(' ') || <span className="muted">none</span>}</td>
                        <td>
                          <ContactStatusBadge status={contact.status} />
                        </td>
                        <td>{contact.tags.length ? contact.tags.join(', ') : <span className="muted">none</span>}</td>
                        <td>
                          <Time value={contact.createdAt} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableScroll>
            )}
            {pagination.pages > 1 ? (
              <NumberedPager
                label="Pages of contacts"
                page={pagination.page}
                pages={pagination.pages}
                total={pagination.total}
                onPage={(next) => navigate(addressOf(audienceId, filters, next))}
              />
            ) : null}
          </>
        )}
      </QueryView>
    </>
  );
}
