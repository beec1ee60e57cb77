/**
 * Suppressions: the account's suppression list, the addresses no send
 * reaches (docs/suppressions.md). Searched by the start of an address and
 * filtered by reason (kept in the address, like the message log's filters),
 * a page at a time by the API's cursor; addresses added by hand or from a
 * CSV file; one lifted after a confirmation, and a complaint only after a
 * second, explicit one that says why it is risky (the API asks for it too).
 * Contacts whose own status is bounced or complained are listed too (the API
 * reads them after the list), each linked to its contact; removing one makes
 * the contact subscribed again. Reached from the Emails and Audiences pages'
 * headers: the navigation's order is fixed.
 */
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Checkbox } from 'react-aria-components/CheckboxGroup';
import { listSuppressionsQuery, SUPPRESSION_REASONS } from '#shared/suppressions/schema.ts';
import { api, call, type paths } from '../../api/client.ts';
import type { ApiError } from '../../api/errors.ts';
import { navigate, useLocation } from '../../router.ts';
import { AppLink } from '../../ui/app-link.tsx';
import { ConfirmAction } from '../../ui/confirm.tsx';
import { Action, ApiForm, FormError, TextInput } from '../../ui/fields.tsx';
import { Badge, Empty, PageHeader, QueryView, Section, TableScroll, Time } from '../../ui/page.tsx';
import { SelectField } from '../../ui/select.tsx';
import { checkInput } from '../../ui/use-form-submit.ts';
import { AddSuppressions } from './add-suppressions.tsx';

type Suppression = paths['/api/suppressions']['get']['responses']['200']['content']['application/json']['suppressions'][number];
type Reason = Suppression['reason'];

const PAGE_SIZE = '50';

const REASON_LABELS: Record<Reason, string> = { bounce: 'Bounced', complaint: 'Complaint', unsubscribe: 'Unsubscribed', manual: 'Added by hand' };
const REASON_TONES: Record<Reason, 'bad' | 'warn' | 'neutral'> = { bounce: 'warn', complaint: 'bad', unsubscribe: 'neutral', manual: 'neutral' };
const REASON_OPTIONS = [{ value: '', label: 'Any reason' }, ...SUPPRESSION_REASONS.map((reason) => ({ value: reason, label: REASON_LABELS[reason] }))];

interface Filters {
  search?: string;
  reason?: string;
}

function filtersOf(query: URLSearchParams): Filters {
  return Object.fromEntries((['search', 'reason'] as const).flatMap((name) => (query.get(name) ? [[name, query.get(name)!]] : [])));
}

function addressOf(filters: Filters, cursor?: string): string {
  const query = new URLSearchParams({ ...filters, ...(cursor ? { cursor } : {}) }).toString();
  return `/suppressions${query ? `?${query}` : ''}`;
}

/** What put the address on the list, in words; the email that bounced or drew the complaint, or the contact, is a link to it. */
function Cause({ source }: { source: Suppression['source'] }) {
  if (!source) return <span className="muted">not recorded</span>;
  switch (source.type) {
    case 'contact':
      return source.id && source.audienceId ? (
        <AppLink href={`/audiences/${encodeURIComponent(source.audienceId)}/contacts/${encodeURIComponent(source.id)}`}>its contact's status</AppLink>
      ) : (
        <>its contact's status</>
      );
    case 'email':
      return source.id ? <AppLink href={`/emails/${source.id}`}>an email</AppLink> : <>an email</>;
    case 'recipient':
      return <>their unsubscribe link</>;
    case 'member':
      return <>a team member</>;
    case 'key':
      return <>an API key</>;
    case 'operator':
      return <>the operator</>;
  }
}

function SearchForm({ initial, onApply }: { initial: Filters; onApply: (filters: Filters) => void }) {
  const [search, setSearch] = useState(initial.search ?? '');
  const [reason, setReason] = useState(initial.reason ?? '');
  const [problem, setProblem] = useState<ApiError | undefined>();
  return (
    <ApiForm
      className="filters"
      label="Search the suppression list"
      errors={problem?.field ? { [problem.field]: problem.message } : {}}
      onSubmit={() => {
        const chosen: Filters = { ...(search.trim() ? { search: search.trim() } : {}), ...(reason ? { reason } : {}) };
        const issue = checkInput(listSuppressionsQuery, chosen);
        setProblem(issue);
        if (!issue) onApply(chosen);
      }}
    >
      <TextInput label="Address starts with" name="search" type="search" value={search} onChange={setSearch} placeholder="ann@" />
      <SelectField label="Reason" name="reason" value={reason} onChange={setReason} options={REASON_OPTIONS} />
      <div className="filters-actions">
        <Action type="submit" variant="primary">
          Search
        </Action>
      </div>
      <FormError error={problem && !problem.field ? problem : undefined} />
    </ApiForm>
  );
}

function Remove({ suppression }: { suppression: Suppression }) {
  const queryClient = useQueryClient();
  const [understood, setUnderstood] = useState(false);
  const complaint = suppression.reason === 'complaint';
  const lift = async () => {
    await call(
      api.DELETE('/api/suppressions/{email}', {
        params: { path: { email: suppression.email }, query: complaint ? { confirm: 'complaint' } : {} },
      }),
    );
    await queryClient.invalidateQueries({ queryKey: ['suppressions'] });
  };
  return (
    <ConfirmAction
      label="Remove"
      ariaLabel={`Remove ${suppression.email}`}
      title={complaint ? `Lift a complaint for ${suppression.email}?` : `Remove ${suppression.email}?`}
      confirmLabel={complaint ? 'Lift the complaint' : 'Remove from the list'}
      isConfirmDisabled={complaint && !understood}
      onConfirm={lift}
    >
      <p>
        Every send will reach this address again
        {suppression.source?.type === 'contact' ? ': its bounced or complained contacts become subscribed, in every audience.' : '.'}
      </p>
      {complaint ? (
        <>
          <p className="notice notice-warn">
            This person reported your mail as spam. Mailing them again is likely to draw another complaint, and complaint rates above 0.1% put your sending
            under review (SES) and past 0.3% get mail refused by Gmail and Yahoo. Lift it only if they asked to hear from you again.
          </p>
          <Checkbox className="checkbox" isSelected={understood} onChange={setUnderstood}>
            <span className="checkbox-box" aria-hidden="true" />
            They asked for mail again; I understand the risk
          </Checkbox>
        </>
      ) : null}
    </ConfirmAction>
  );
}

function SuppressionTable({ suppressions }: { suppressions: Suppression[] }) {
  return (
    <TableScroll label="Suppressed addresses">
      <table className="table">
        <caption className="visually-hidden">Suppressed addresses, in address order</caption>
        <thead>
          <tr>
            <th scope="col">Address</th>
            <th scope="col">Reason</th>
            <th scope="col">Since</th>
            <th scope="col">Caused by</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {suppressions.map((suppression) => (
            <tr key={`${suppression.email} ${suppression.source?.type === 'contact' ? suppression.source.id : 'list'}`}>
              <th scope="row" className="cell-wrap">
                {suppression.email}
              </th>
              <td>
                <Badge tone={REASON_TONES[suppression.reason]}>{REASON_LABELS[suppression.reason]}</Badge>
              </td>
              <td>
                <Time value={suppression.createdAt} />
              </td>
              <td>
                <Cause source={suppression.source} />
              </td>
              <td>
                <Remove suppression={suppression} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

export default function SuppressionsPage() {
  const { query } = useLocation();
  const filters = filtersOf(query);
  const cursor = query.get('cursor') ?? undefined;
  const [earlier, setEarlier] = useState<(string | undefined)[]>([]);
  const list = useQuery({
    queryKey: ['suppressions', filters, cursor],
    queryFn: () =>
      call(
        api.GET('/api/suppressions', {
          params: { query: { ...(filters as { search?: string; reason?: Reason }), limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) } },
        }),
      ),
    placeholderData: keepPreviousData,
  });
  return (
    <>
      <PageHeader title="Suppressions">
        <AppLink href="/emails" className="button button-quiet">
          Back to emails
        </AppLink>
      </PageHeader>
      <p className="lead">
        No email reaches these addresses: they bounced, reported mail as spam, unsubscribed from all of your mail, or were added here. Contacts whose own status
        is bounced or complained are listed after them; a contact's unsubscribe from an audience is kept on the contact, in its audience.
      </p>
      <Section title="Suppressed addresses">
        <SearchForm
          key={JSON.stringify(filters)}
          initial={filters}
          onApply={(chosen) => {
            setEarlier([]);
            if (addressOf(chosen) === addressOf(filters, cursor)) void list.refetch();
            else navigate(addressOf(chosen));
          }}
        />
        <QueryView query={list} label="Suppressions">
          {(page) => (
            <>
              {page.suppressions.length === 0 ? (
                <Empty>{Object.keys(filters).length > 0 ? 'No suppressed address matches on this page.' : 'No address is suppressed.'}</Empty>
              ) : (
                <SuppressionTable suppressions={page.suppressions} />
              )}
              <nav className="pager" aria-label="Pages of suppressions">
                <Action
                  isDisabled={earlier.length === 0}
                  onPress={() => {
                    const previous = earlier.at(-1);
                    setEarlier(earlier.slice(0, -1));
                    navigate(addressOf(filters, previous));
                  }}
                >
                  Previous
                </Action>
                <Action
                  isDisabled={!page.pagination.nextCursor}
                  onPress={() => {
                    setEarlier([...earlier, cursor]);
                    navigate(addressOf(filters, page.pagination.nextCursor ?? undefined));
                  }}
                >
                  Next
                </Action>
              </nav>
            </>
          )}
        </QueryView>
      </Section>
      <Section title="Add addresses">
        <AddSuppressions />
      </Section>
    </>
  );
}
