/**
 * An endpoint's page: its settings and actions, and its deliveries (newest
 * first) with their status, attempts and last answer; a failed or pending
 * one can be retried now. While any delivery is pending the list refreshes
 * itself every few seconds.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { AppLink } from '../../ui/app-link.tsx';
import { api, call, type paths } from '../../api/client.ts';
import { asApiError, describeError } from '../../api/errors.ts';
import type { PageProps } from '../../routes.tsx';
import { Action } from '../../ui/fields.tsx';
import { Badge, Empty, PageHeader, QueryView, Section, Time, TableScroll } from '../../ui/page.tsx';
import { WebhookActions } from './webhook-actions.tsx';

type Delivery = paths['/api/webhooks/{id}/deliveries']['get']['responses']['200']['content']['application/json']['deliveries'][number];

const TONE = { succeeded: 'good', pending: 'warn', failed: 'bad' } as const;

function RetryDelivery({ webhookId, delivery }: { webhookId: string; delivery: Delivery }) {
  const queryClient = useQueryClient();
  const retry = useMutation({
    mutationFn: () => call(api.POST('/api/webhooks/{id}/deliveries/{deliveryId}/retry', { params: { path: { id: webhookId, deliveryId: delivery.id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['webhooks', webhookId, 'deliveries'] }),
  });
  if (delivery.status === 'succeeded') return null;
  return (
    <>
      <Action onPress={() => retry.mutate()} busy={retry.isPending} aria-label={`Retry now: the ${delivery.eventType} delivery`}>
        Retry now
      </Action>
      {retry.error ? (
        <span className="field-error" role="alert">
          {describeError(asApiError(retry.error))}
        </span>
      ) : null}
    </>
  );
}

function Deliveries({ webhookId }: { webhookId: string }) {
  const deliveries = useQuery({
    queryKey: ['webhooks', webhookId, 'deliveries'],
    queryFn: () => call(api.GET('/api/webhooks/{id}/deliveries', { params: { path: { id: webhookId }, query: { limit: '50' } } })),
    refetchInterval: (query) => (query.state.data?.deliveries.some((delivery) => delivery.status === 'pending') ? 3_000 : false),
  });
  return (
    <QueryView query={deliveries} label="Deliveries">
      {({ deliveries: list }) =>
        list.length === 0 ? (
          <Empty>No delivery yet. Send a test event to see one.</Empty>
        ) : (
          <TableScroll label="Deliveries, newest first">
            <table className="table">
              <caption className="visually-hidden">Deliveries, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Event</th>
                  <th scope="col">Status</th>
                  <th scope="col">Attempts</th>
                  <th scope="col">Last answer</th>
                  <th scope="col">Created</th>
                  <th scope="col">Next attempt</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {list.map((delivery) => (
                  <tr key={delivery.id}>
                    <th scope="row">{delivery.eventType}</th>
                    <td>
                      <Badge tone={TONE[delivery.status]}>{delivery.status}</Badge>
                    </td>
                    <td>{delivery.attempts}</td>
                    <td className="cell-wrap">{delivery.lastStatusCode ? `HTTP ${delivery.lastStatusCode}` : (delivery.lastError ?? '—')}</td>
                    <td>
                      <Time value={delivery.createdAt} />
                    </td>
                    <td>{delivery.nextAttemptAt ? <Time value={delivery.nextAttemptAt} /> : '—'}</td>
                    <td>
                      <RetryDelivery webhookId={webhookId} delivery={delivery} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        )
      }
    </QueryView>
  );
}

export default function WebhookPage({ params }: PageProps) {
  const id = params.id!;
  const webhook = useQuery({ queryKey: ['webhooks', id], queryFn: () => call(api.GET('/api/webhooks/{id}', { params: { path: { id } } })) });
  return (
    <>
      <PageHeader title="Webhook endpoint">
        <AppLink href="/webhooks" className="button button-quiet">
          All endpoints
        </AppLink>
      </PageHeader>
      <QueryView query={webhook} label="The endpoint">
        {({ data }) => (
          <>
            <dl className="facts">
              <div>
                <dt>URL</dt>
                <dd className="cell-wrap">{data.url}</dd>
              </div>
              <div>
                <dt>Events</dt>
                <dd>{data.events.includes('*') ? 'all' : data.events.join(', ')}</dd>
              </div>
              <div>
                <dt>State</dt>
                <dd>{data.enabled ? <Badge tone="good">enabled</Badge> : <Badge tone="warn">disabled</Badge>}</dd>
              </div>
              {data.description ? (
                <div>
                  <dt>Description</dt>
                  <dd className="cell-wrap">{data.description}</dd>
                </div>
              ) : null}
            </dl>
            <WebhookActions webhook={data} afterDelete="/webhooks" />
          </>
        )}
      </QueryView>
      <Section title="Deliveries">
        <Deliveries webhookId={id} />
      </Section>
    </>
  );
}
