/**
 * A domain's page: the DNS records to publish (each with a copy button, since
 * a mistyped value is the usual reason a domain stays pending), its status,
 * "Verify now", and deleting it.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { AppLink } from '../../ui/app-link.tsx';
import { api, call, type paths } from '../../api/client.ts';
import { navigate } from '../../router.ts';
import type { PageProps } from '../../routes.tsx';
import { ConfirmAction } from '../../ui/confirm.tsx';
import { CopyButton } from '../../ui/copy-button.tsx';
import { PageHeader, QueryView, Section, Time, TableScroll } from '../../ui/page.tsx';
import { DomainStatus } from './domain-status.tsx';
import { VerifyNow } from './verify-now.tsx';

type Domain = paths['/api/domains/{id}']['get']['responses']['200']['content']['application/json']['data'];

const PURPOSE: Record<Domain['records'][number]['purpose'], string> = {
  dkim: 'DKIM signature',
  ownership: 'Ownership',
  spf: 'SPF (sender)',
  dmarc: 'DMARC policy',
};

function Records({ domain }: { domain: Domain }) {
  return (
    <TableScroll label={`DNS records for ${domain.domain}`}>
      <table className="table records">
        <caption className="visually-hidden">DNS records for {domain.domain}</caption>
        <thead>
          <tr>
            <th scope="col">Purpose</th>
            <th scope="col">Type</th>
            <th scope="col">Name</th>
            <th scope="col">Value</th>
            <th scope="col">Status</th>
          </tr>
        </thead>
        <tbody>
          {domain.records.map((record) => (
            <tr key={`${record.purpose}:${record.name}:${record.value}`}>
              <th scope="row">
                {PURPOSE[record.purpose]}
                {record.required ? '' : <span className="muted"> (recommended)</span>}
              </th>
              <td>{record.type}</td>
              <td>
                <code className="cell-wrap">{record.name}</code>
                <CopyButton value={record.name} label={`Copy the name of the ${PURPOSE[record.purpose]} record`} />
              </td>
              <td>
                <code className="cell-wrap">{record.value}</code>
                <CopyButton value={record.value} label={`Copy the value of the ${PURPOSE[record.purpose]} record`} />
              </td>
              <td>{record.required ? <DomainStatus status={domain.status} /> : <span className="muted">not checked</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

export default function DomainPage({ params }: PageProps) {
  const id = params.id!;
  const queryClient = useQueryClient();
  const domain = useQuery({ queryKey: ['domains', id], queryFn: () => call(api.GET('/api/domains/{id}', { params: { path: { id } } })) });
  return (
    <>
      <PageHeader title={domain.data?.data.domain ?? 'Domain'}>
        <AppLink href="/domains" className="button button-quiet">
          All domains
        </AppLink>
      </PageHeader>
      <QueryView query={domain} label="The domain">
        {({ data }) => (
          <>
            <div className="status-line">
              <DomainStatus status={data.status} />
              {data.verified ? (
                <span>
                  Verified <Time value={data.verifiedAt} />: you can send from any address at {data.domain}.
                </span>
              ) : (
                <span>Publish the records below at your DNS provider, then verify. DNS changes can take a few minutes to an hour to be seen.</span>
              )}
            </div>
            <div className="page-actions">
              <VerifyNow id={id} />
              <ConfirmAction
                label="Delete domain"
                title={`Delete ${data.domain}?`}
                confirmLabel="Delete domain"
                onConfirm={async () => {
                  await call(api.DELETE('/api/domains/{id}', { params: { path: { id } } }));
                  await queryClient.invalidateQueries({ queryKey: ['domains'] });
                  navigate('/domains');
                }}
              >
                <p>Sending from any address at {data.domain} stops at once. You can add the domain again later, but it must be verified again.</p>
              </ConfirmAction>
            </div>
            <Section title="DNS records">
              <Records domain={data} />
            </Section>
          </>
        )}
      </QueryView>
    </>
  );
}
