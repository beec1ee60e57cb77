/** Enable or disable an endpoint, send it a test event, delete it (after confirmation). */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, call, type paths } from '../../api/client.ts';
import { asApiError, describeError } from '../../api/errors.ts';
import { navigate } from '../../router.ts';
import { ConfirmAction } from '../../ui/confirm.tsx';
import { Action } from '../../ui/fields.tsx';

export type Webhook = paths['/api/webhooks/{id}']['get']['responses']['200']['content']['application/json']['data'];

export function WebhookActions({ webhook, afterDelete }: { webhook: Webhook; afterDelete?: string }) {
  const queryClient = useQueryClient();
  const path = { id: webhook.id };
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['webhooks'] });
  const toggle = useMutation({
    mutationFn: () => call(api.PATCH('/api/webhooks/{id}', { params: { path }, body: { enabled: !webhook.enabled } })),
    onSuccess: refresh,
  });
  const test = useMutation({ mutationFn: () => call(api.POST('/api/webhooks/{id}/test', { params: { path } })), onSuccess: refresh });
  const failure = toggle.error ?? test.error;
  return (
    <div className="row-actions">
      <Action onPress={() => toggle.mutate()} busy={toggle.isPending} aria-label={`${webhook.enabled ? 'Disable' : 'Enable'} ${webhook.url}`}>
        {webhook.enabled ? 'Disable' : 'Enable'}
      </Action>
      <Action onPress={() => test.mutate()} busy={test.isPending} aria-label={`Send test event to ${webhook.url}`}>
        Send test event
      </Action>
      <ConfirmAction
        label="Delete"
        ariaLabel={`Delete ${webhook.url}`}
        title="Delete this endpoint?"
        confirmLabel="Delete endpoint"
        onConfirm={async () => {
          await call(api.DELETE('/api/webhooks/{id}', { params: { path } }));
          await refresh();
          if (afterDelete) navigate(afterDelete);
        }}
      >
        <p>{webhook.url} receives no more events, and its pending deliveries are dropped. Its signing secret stops working; a new endpoint gets a new one.</p>
      </ConfirmAction>
      <span role="status" className="row-status">
        {test.isSuccess ? 'Test event sent: see the deliveries.' : ''}
      </span>
      {failure ? (
        <p className="notice notice-error" role="alert">
          {describeError(asApiError(failure))}
        </p>
      ) : null}
    </div>
  );
}
