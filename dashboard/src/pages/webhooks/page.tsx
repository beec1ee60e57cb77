/** Webhooks: add an endpoint, and the account's endpoints with their state, each with its deliveries on its own page. */
import { useQuery } from '@tanstack/react-query';
import { AppLink } from '../../ui/app-link.tsx';
import { api, call } from '../../api/client.ts';
import { Badge, Empty, PageHeader, QueryView, Section, Time, TableScroll } from '../../ui/page.tsx';
import { CreateWebhook } from './create-webhook.tsx';
import { WebhookActions } from './webhook-actions.tsx';

export default function WebhooksPage() {
  const webhooks = useQuery({ queryKey: ['webhooks'], queryFn: () => call(api.GET('/api/webhooks')) });
  return (
    <>
      <PageHeader title="Webhooks" />
      <Section title="Add an endpoint">
        <CreateWebhook />
      </Section>
      <Section title="Endpoints">
        <QueryView query={webhooks} label="Webhook endpoints">
          {({ webhooks: list }) =>
            list.length === 0 ? (
              <Empty>No endpoint yet. Add one to be told of deliveries, bounces, opens and more as they happen.</Empty>
            ) : (
              <TableScroll label="Webhook endpoints">
                <table className="table">
                  <caption className="visually-hidden">Webhook endpoints</caption>
                  <thead>
                    <tr>
                      <th scope="col">Endpoint</th>
                      <th scope="col">Events</th>
                      <th scope="col">State</th>
                      <th scope="col">Added</th>
                      <th scope="col">Actions</th>
                    </tr>
                  </thead>
                  <tbody>
                    {list.map((webhook) => (
                      <tr key={webhook.id}>
                        <th scope="row">
                          <AppLink href={`/webhooks/${encodeURIComponent(webhook.id)}`} className="cell-truncate" title={webhook.url}>
                            {webhook.url}
                          </AppLink>
                          {webhook.description ? <span className="muted cell-wrap"> {webhook.description}</span> : null}
                        </th>
                        <td>{webhook.events.includes('*') ? 'all' : webhook.events.join(', ')}</td>
                        <td>
                          {webhook.enabled ? <Badge tone="good">enabled</Badge> : <Badge tone="warn">disabled</Badge>}
                          {webhook.disabledAt ? <span className="muted"> after repeated failures</span> : null}
                        </td>
                        <td>
                          <Time value={webhook.createdAt} />
                        </td>
                        <td className="cell-actions">
                          <WebhookActions webhook={webhook} />
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
