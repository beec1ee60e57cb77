/**
 * Emails: the message log, newest first, filtered by status, recipient, dates
 * and broadcast, a page at a time by the API's cursor. The filters and the
 * cursor live in the address; the cursors of earlier pages in memory, for
 * "Newer".
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, call } from '../../api/client.ts';
import { navigate, useLocation } from '../../router.ts';
import { AppLink } from '../../ui/app-link.tsx';
import { Action } from '../../ui/fields.tsx';
import { Empty, PageHeader, QueryView } from '../../ui/page.tsx';
import { EmailTable } from './email-table.tsx';
import { EmailFilters, filtersOf, type Filters } from './filters.tsx';

const PAGE_SIZE = '25';

function addressOf(filters: Filters, cursor?: string): string {
  const query = new URLSearchParams({ ...filters, ...(cursor ? { cursor } : {}) }).toString();
  return `/emails${query ? `?${query}` : ''}`;
}

export default function EmailsPage() {
  const { query } = useLocation();
  const filters = filtersOf(query);
  const cursor = query.get('cursor') ?? undefined;
  const [newer, setNewer] = useState<(string | undefined)[]>([]);
  const emails = useQuery({
    queryKey: ['emails', filters, cursor],
    queryFn: () =>
      call(
        api.GET('/api/emails', {
          params: { query: { ...(filters as Record<string, string>), limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) } },
        }),
      ),
    placeholderData: keepPreviousData,
  });
  return (
    <>
      <PageHeader title="Emails">
        <AppLink href="/suppressions" className="button button-secondary">
          Suppressions
        </AppLink>
      </PageHeader>
      <EmailFilters
        key={JSON.stringify(filters)}
        initial={filters}
        onApply={(chosen) => {
          setNewer([]);
          // The same filters again: the person wants fresh results, not nothing.
          if (addressOf(chosen) === addressOf(filters, cursor)) void emails.refetch();
          else navigate(addressOf(chosen));
        }}
      />
      <QueryView query={emails} label="Emails">
        {(page) => (
          <>
            {page.emails.length === 0 ? (
              <Empty>{Object.keys(filters).length > 0 ? 'No email matches these filters on this page.' : 'No email sent yet.'}</Empty>
            ) : (
              <EmailTable emails={page.emails} caption="Sent emails, newest first" />
            )}
            <nav className="pager" aria-label="Pages of emails">
              <Action
                isDisabled={newer.length === 0}
                onPress={() => {
                  const previous = newer.at(-1);
                  setNewer(newer.slice(0, -1));
                  navigate(addressOf(filters, previous));
                }}
              >
                Newer
              </Action>
              <Action
                isDisabled={!page.pagination.nextCursor}
                onPress={() => {
                  setNewer([...newer, cursor]);
                  navigate(addressOf(filters, page.pagination.nextCursor ?? undefined));
                }}
              >
                Older
              </Action>
            </nav>
          </>
        )}
      </QueryView>
    </>
  );
}
