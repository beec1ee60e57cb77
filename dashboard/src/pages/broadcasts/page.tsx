/** Broadcasts: the account's broadcasts, newest first, a page at a time, with their status and progress; a new one from the composer. */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, call } from '../../api/client.ts';
import { AppLink } from '../../ui/app-link.tsx';
import { Empty, PageHeader, QueryView, Section, TableScroll, Time } from '../../ui/page.tsx';
import { NEWEST_FIRST, NumberedPager } from '../../ui/pager.tsx';
import { BroadcastStatus, isActive, Progress } from './status.tsx';

const PAGE_SIZE = 50;

export default function BroadcastsPage() {
  const [page, setPage] = useState(1);
  const broadcasts = useQuery({
    queryKey: ['broadcasts', 'list', page],
    queryFn: () => call(api.GET('/api/broadcasts', { params: { query: { page: String(page), limit: String(PAGE_SIZE) } } })),
    placeholderData: keepPreviousData,
    refetchInterval: (query) => (query.state.data?.broadcasts.some((broadcast) => isActive(broadcast.status)) ? 3_000 : false),
  });
  return (
    <>
      <PageHeader title="Broadcasts">
        <AppLink href="/broadcasts/new" className="button button-primary">
          New broadcast
        </AppLink>
      </PageHeader>
      <Section title="All broadcasts">
        <QueryView query={broadcasts} label="Broadcasts">
          {({ broadcasts: list, pagination }) =>
            list.length === 0 && page === 1 ? (
              <Empty>No broadcast yet. A broadcast mails one message to each subscribed contact of an audience, or of a segment of it.</Empty>
            ) : (
              <>
                <TableScroll label="Broadcasts, newest first">
                  <table className="table">
                    <caption className="visually-hidden">Broadcasts, newest first</caption>
                    <thead>
                      <tr>
                        <th scope="col">Name</th>
                        <th scope="col">Status</th>
                        <th scope="col">Progress</th>
                        <th scope="col">Scheduled</th>
                        <th scope="col">Created</th>
                      </tr>
                    </thead>
                    <tbody>
                      {list.map((broadcast) => (
                        <tr key={broadcast.id}>
                          <th scope="row" className="cell-wrap">
                            <AppLink href={`/broadcasts/${broadcast.id}`}>{broadcast.name}</AppLink>
                          </th>
                          <td>
                            <BroadcastStatus broadcast={broadcast} />
                          </td>
                          <td>
                            <Progress broadcast={broadcast} label={`Progress of ${broadcast.name}`} />
                          </td>
                          <td>{broadcast.scheduledAt ? <Time value={broadcast.scheduledAt} /> : <span className="muted">—</span>}</td>
                          <td>
                            <Time value={broadcast.createdAt} />
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </TableScroll>
                <NumberedPager label="Pages of broadcasts" page={page} pages={pagination.pages} onPage={setPage} names={NEWEST_FIRST} hideSinglePage />
              </>
            )
          }
        </QueryView>
      </Section>
    </>
  );
}
