/** Domains: add one (then its page shows the DNS records to publish), and the account's domains with their status. */
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { AppLink } from '../../ui/app-link.tsx';
import { createDomainBody } from '#shared/domains/schema.ts';
import { api, call } from '../../api/client.ts';
import { navigate } from '../../router.ts';
import { ApiForm, FormError, SubmitButton, TextInput } from '../../ui/fields.tsx';
import { Empty, PageHeader, QueryView, Section, Time, TableScroll } from '../../ui/page.tsx';
import { useFormSubmit } from '../../ui/use-form-submit.ts';
import { DomainStatus } from './domain-status.tsx';

function AddDomain() {
  const [domain, setDomain] = useState('');
  const form = useFormSubmit({
    schema: createDomainBody,
    fields: ['domain'],
    send: (body: { domain: string }) => call(api.POST('/api/domains', { body })),
    invalidates: [['domains']],
    onDone: ({ data }) => navigate(`/domains/${encodeURIComponent(data.id)}`),
  });
  return (
    <ApiForm className="form form-inline" label="Add a domain" errors={form.fieldErrors} onSubmit={() => form.submit({ domain })}>
      <TextInput
        label="Domain"
        name="domain"
        value={domain}
        onChange={setDomain}
        isRequired
        placeholder="mail.example.com"
        description="The domain you send from: the part after @ in your From address."
      />
      <SubmitButton pending={form.pending}>Add domain</SubmitButton>
      <FormError error={form.formError} />
    </ApiForm>
  );
}

export default function DomainsPage() {
  const domains = useQuery({ queryKey: ['domains'], queryFn: () => call(api.GET('/api/domains', { params: { query: { limit: '100' } } })) });
  return (
    <>
      <PageHeader title="Domains" />
      <Section title="Add a domain">
        <AddDomain />
      </Section>
      <Section title="Your domains">
        <QueryView query={domains} label="Domains">
          {({ domains: data }) =>
            data.length === 0 ? (
              <Empty>No domain yet. Add the domain you send from; Postlane shows the DNS records that prove it is yours.</Empty>
            ) : (
              <TableScroll label="Your domains">
                <table className="table">
                  <caption className="visually-hidden">Your domains</caption>
                  <thead>
                    <tr>
                      <th scope="col">Domain</th>
                      <th scope="col">Status</th>
                      <th scope="col">Added</th>
                      <th scope="col">Verified</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.map((domain) => (
                      <tr key={domain.id}>
                        <th scope="row">
                          <AppLink href={`/domains/${encodeURIComponent(domain.id)}`}>{domain.domain}</AppLink>
                        </th>
                        <td>
                          <DomainStatus status={domain.status} />
                        </td>
                        <td>
                          <Time value={domain.createdAt} />
                        </td>
                        <td>
                          <Time value={domain.verifiedAt} />
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
