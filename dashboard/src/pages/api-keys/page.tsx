/** API keys: create one, and the account's keys with their hint and last use; disable, enable or revoke each. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call, type paths } from '../../api/client.ts';
import { asApiError, describeError } from '../../api/errors.ts';
import { ConfirmAction } from '../../ui/confirm.tsx';
import { Action } from '../../ui/fields.tsx';
import { Badge, Empty, PageHeader, QueryView, Section, Time, TableScroll } from '../../ui/page.tsx';
import { CreateKey } from './create-key.tsx';

type ApiKey = paths['/api/api-keys']['get']['responses']['200']['content']['application/json']['keys'][number];

function KeyActions({ apiKey }: { apiKey: ApiKey }) {
  const queryClient = useQueryClient();
  const path = { id: apiKey.id };
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['api-keys'] });
  const toggle = useMutation({
    mutationFn: () => call(api.PATCH('/api/api-keys/{id}', { params: { path }, body: { disabled: !apiKey.disabled } })),
    onSuccess: refresh,
  });
  return (
    <div className="row-actions">
      <Action onPress={() => toggle.mutate()} busy={toggle.isPending} aria-label={`${apiKey.disabled ? 'Enable' : 'Disable'} the key ${apiKey.name}`}>
        {apiKey.disabled ? 'Enable' : 'Disable'}
      </Action>
      <ConfirmAction
        label="Revoke"
        ariaLabel={`Revoke the key ${apiKey.name}`}
        title={`Revoke the key ${apiKey.name}?`}
        confirmLabel="Revoke key"
        onConfirm={async () => {
          await call(api.DELETE('/api/api-keys/{id}', { params: { path } }));
          await refresh();
        }}
      >
        <p>
          Requests with the key ending in {apiKey.hint} are refused from now on, in every region. This cannot be undone: to use the key's place again, create a
          new key.
        </p>
      </ConfirmAction>
      {toggle.error ? (
        <p className="notice notice-error" role="alert">
          {describeError(asApiError(toggle.error))}
        </p>
      ) : null}
    </div>
  );
}

export default function ApiKeysPage() {
  const keys = useQuery({ queryKey: ['api-keys'], queryFn: () => call(api.GET('/api/api-keys', { params: { query: { limit: '100' } } })) });
  return (
    <>
      <PageHeader title="API keys" />
      <Section title="Create a key">
        <CreateKey />
      </Section>
      <Section title="Keys">
        <QueryView query={keys} label="API keys">
          {({ keys: list }) =>
            list.length === 0 ? (
              <Empty>No key yet. Create one for each server or tool that calls the API, so each can be revoked alone.</Empty>
            ) : (
              <TableScroll label="API keys, newest first">
                <table className="table">
                  <caption className="visually-hidden">API keys, newest first</caption>
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Key</th>
                      <th scope="col">Access</th>
                      <th scope="col">State</th>
                      <th scope="col">Created</th>
                      <th scope="col">Last used</th>
                      <th scope="col">Actions</th>
                    </tr>
                  </thead>
                  <tbody>
                    {list.map((apiKey) => (
                      <tr key={apiKey.id}>
                        <th scope="row" className="cell-wrap">
                          {apiKey.name}
                        </th>
                        <td>
                          <code className="nowrap">
                            svc_{apiKey.env}_…{apiKey.hint}
                          </code>
                        </td>
                        <td>
                          {apiKey.permission === 'full' ? 'Full access' : 'Sending'}
                          {apiKey.domain ? <span className="muted"> from {apiKey.domain}</span> : null}
                          {apiKey.env === 'test' ? (
                            <>
                              {' '}
                              <Badge tone="neutral">test</Badge>
                            </>
                          ) : null}
                        </td>
                        <td>{apiKey.disabled ? <Badge tone="warn">disabled</Badge> : <Badge tone="good">active</Badge>}</td>
                        <td>
                          <Time value={apiKey.createdAt} />
                        </td>
                        <td>
                          <Time value={apiKey.lastUsedAt} />
                        </td>
                        <td className="cell-actions">
                          <KeyActions apiKey={apiKey} />
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
