/** An audience's contacts by status and its 30-day growth: the API's maintained counters, exact and O(1) to read. */
import { useQuery } from '@tanstack/react-query';
import { api, call } from '../../api/client.ts';
import { QueryView } from '../../ui/page.tsx';

const STATUSES = ['subscribed', 'unsubscribed', 'pending', 'bounced', 'complained'] as const;

/** The audience's page calls it too, so the statistics load beside the audience rather than after it. */
export function useAudienceStats(id: string) {
  return useQuery({
    queryKey: ['audiences', id, 'stats'],
    queryFn: () => call(api.GET('/api/audiences/{id}/stats', { params: { path: { id } } })),
  });
}

export function AudienceStats({ id }: { id: string }) {
  const stats = useAudienceStats(id);
  return (
    <QueryView query={stats} label="Statistics">
      {({ data }) => (
        <div className="cards cards-compact">
          <div className="card">
            <p className="card-title">Contacts</p>
            <p className="card-value">{data.total.toLocaleString()}</p>
            <p className="muted">
              {data.growthRate > 0 ? '+' : ''}
              {data.growthRate}% over 30 days
            </p>
          </div>
          {STATUSES.map((status) => (
            <div className="card" key={status}>
              <p className="card-title">{status[0]!.toUpperCase() + status.slice(1)}</p>
              <p className="card-value">{data[status].toLocaleString()}</p>
            </div>
          ))}
        </div>
      )}
    </QueryView>
  );
}
