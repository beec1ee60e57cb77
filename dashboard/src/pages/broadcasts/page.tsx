/** Broadcasts: the account's broadcasts, newest first, with their status and progress; a new one from the composer. */
import { useQuery } from '@tanstack/react-query';
import { api, call } from '../../api/client.ts';
import { AppLink } from '../../ui/app-link.tsx';
import { Empty, PageHeader, QueryView, Section, TableScroll, Time } from '../../ui/page.tsx';
import { BroadcastStatus, isActive, Progress } from './status.tsx';

export default function BroadcastsPage() {
  const broadcasts = useQuery({
    queryKey: ['broadcasts'],
    queryFn: () => call(api.GET('/api/broadcasts', { params: { query: { limit: '100' } } })),
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
          {({ broadcasts: list }) =>
            list.length === 0 ? (
              <Empty>No broadcast yet. A broadcast mails one message to each subscribed contact of an audience, or of a segment of it.</Empty>
            ) : (
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
            )
          }
        </QueryView>
      </Section>
    </>
  );
}
