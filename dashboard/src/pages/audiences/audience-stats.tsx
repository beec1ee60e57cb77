/** An audience's contacts by status and its 30-day growth: the API's maintained counters, exact and O(1) to read. */
import { useQuery } from '@tanstack/react-query';
import { api, call } from '../../api/client.ts';
import { QueryView } from '../../ui/page.tsx';

const STATUSES = ['subscribed', 'unsubscribed', 'pending', 'bounced', 'complained'] as const;

const GROWTH_WINDOW_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * The API answers `growthRate: 0` when there was nothing 30 days ago to
 * compare with (docs/api.md, audiences): for an audience younger than that,
 * "0%" beside its first contacts would read as "no growth", so it is said to be new.
 */
function Growth({ rate, createdAt }: { rate: number; createdAt: string }) {
  if (Date.now() - Date.parse(createdAt) < GROWTH_WINDOW_MS) return <p className="muted">New: under 30 days old</p>;
  return (
    <p className="muted">
      {rate > 0 ? '+' : ''}
      {rate}% over 30 days
    </p>
  );
}

/** The audience's page calls it too, so the statistics load beside the audience rather than after it. */
export function useAudienceStats(id: string) {
  return useQuery({
    queryKey: ['audiences', id, 'stats'],
    queryFn: () => call(api.GET('/api/audiences/{id}/stats', { params: { path: { id } } })),
  });
}

export function AudienceStats({ id, createdAt }: { id: string; createdAt: string }) {
  const stats = useAudienceStats(id);
  return (
    <QueryView query={stats} label="Statistics">
      {({ data }) => (
        <div className="cards cards-compact">
          <div className="card">
            <p className="card-title">Contacts</p>
            <p className="card-value">{data.total.toLocaleString()}</p>
            <Growth rate={data.growthRate} createdAt={createdAt} />
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
