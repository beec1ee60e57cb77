/**
 * Exporting an audience: the server writes the CSV and answers a link that
 * works for 15 minutes, so the browser never pages through the contacts. A
 * small audience is written within the request (201 `ready`); a large one is
 * queued (202): the page polls the export until it is `ready` or `failed`.
 */
import { useMutation, useQuery } from '@tanstack/react-query';
import { api, call } from '../../api/client.ts';
import { asApiError } from '../../api/errors.ts';
import { Action, FormError } from '../../ui/fields.tsx';
import { Time } from '../../ui/page.tsx';

/** How often a queued export is asked after: a large export takes seconds to a minute. */
const POLL_MS = 2_000;

const isWaiting = (status: string | undefined) => status === 'queued' || status === 'running';

export function ExportAudience({ id }: { id: string }) {
  const exported = useMutation({ mutationFn: () => call(api.POST('/api/audiences/{id}/exports', { params: { path: { id } } })), gcTime: 0 });
  const started = exported.data?.data;
  const polled = useQuery({
    queryKey: ['audiences', id, 'exports', started?.id],
    queryFn: () => call(api.GET('/api/audiences/{id}/exports/{exportId}', { params: { path: { id, exportId: started!.id } } })),
    enabled: isWaiting(started?.status),
    gcTime: 0,
    refetchInterval: (query) => (isWaiting(query.state.data?.data.status ?? started?.status) ? POLL_MS : false),
  });
  const result = polled.data?.data ?? started;
  const preparing = exported.isPending || isWaiting(result?.status);
  return (
    <div className="form">
      <p>Every contact of the audience as a CSV file: address, names, phone, status, tags (separated by ;), dates and one column per custom field.</p>
      <Action variant="secondary" busy={preparing} onPress={() => exported.mutate()}>
        {exported.isPending ? 'Exporting…' : isWaiting(result?.status) ? 'Preparing export…' : 'Export to CSV'}
      </Action>
      <div role="status">
        {isWaiting(result?.status) ? <p>Preparing export… A large audience takes up to a minute; you may leave this page open.</p> : null}
        {result?.status === 'ready' && result.url && result.expiresAt ? (
          <p>
            {result.rows.toLocaleString()} contacts exported.{' '}
            <a href={result.url} download>
              Download the CSV
            </a>{' '}
            <span className="muted">
              (the link works until <Time value={result.expiresAt} />)
            </span>
          </p>
        ) : null}
      </div>
      {result?.status === 'failed' ? (
        <p className="notice notice-error" role="alert">
          {result.reason ?? 'The export failed. Export again.'}
        </p>
      ) : null}
      <FormError error={exported.isError ? asApiError(exported.error) : polled.isError ? asApiError(polled.error) : undefined} />
    </div>
  );
}
