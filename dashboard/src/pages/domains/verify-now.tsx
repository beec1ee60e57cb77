/** "Verify now": the API checks the domain's records at once and answers the domain as it now stands. */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../../api/client.ts';
import { asApiError, describeError } from '../../api/errors.ts';
import { Action } from '../../ui/fields.tsx';

export function VerifyNow({ id }: { id: string }) {
  const queryClient = useQueryClient();
  const verify = useMutation({
    mutationFn: () => call(api.POST('/api/domains/{id}/verify', { params: { path: { id } } })),
    onSuccess: async (reply) => {
      queryClient.setQueryData(['domains', id], reply);
      await queryClient.invalidateQueries({ queryKey: ['domains'], exact: true });
    },
  });
  const outcome = verify.data?.data;
  return (
    <>
      <Action variant="primary" onPress={() => verify.mutate()} busy={verify.isPending}>
        Verify now
      </Action>
      <span role="status" className="row-status">
        {outcome
          ? outcome.verified
            ? 'Verified.'
            : 'Not verified yet: the records are not all visible in DNS. Check them and try again in a few minutes.'
          : ''}
      </span>
      {verify.error ? (
        <span className="field-error" role="alert">
          {describeError(asApiError(verify.error))}
        </span>
      ) : null}
    </>
  );
}
