/**
 * Exporting an audience: the server writes the CSV and answers a link that
 * works for 15 minutes, so the browser never pages through the contacts.
 */
import { useMutation } from '@tanstack/react-query';
import { api, call } from '../../api/client.ts';
import { asApiError } from '../../api/errors.ts';
import { Action, FormError } from '../../ui/fields.tsx';
import { Time } from '../../ui/page.tsx';

export function ExportAudience({ id }: { id: string }) {
  const exported = useMutation({ mutationFn: () => call(api.POST('/api/audiences/{id}/exports', { params: { path: { id } } })), gcTime: 0 });
  const result = exported.data?.data;
  return (
    <div className="form">
      <p>Every contact of the audience as a CSV file: address, names, phone, status, tags (separated by ;), dates and one column per custom field.</p>
      <Action variant="secondary" busy={exported.isPending} onPress={() => exported.mutate()}>
        {exported.isPending ? 'Exporting…' : 'Export to CSV'}
      </Action>
      <div role="status">
        {result ? (
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
      <FormError error={exported.isError ? asApiError(exported.error) : undefined} />
    </div>
  );
}
