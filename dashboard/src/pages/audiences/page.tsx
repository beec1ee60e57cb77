/**
 * Audiences: create one (name, description), and the account's audiences a
 * page at a time, each with its exact contact count (the API's maintained
 * counters). An audience's page has its statistics, its contacts and the rest.
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { createAudienceBody } from '#shared/audiences/schema.ts';
import { api, call } from '../../api/client.ts';
import { navigate, useLocation } from '../../router.ts';
import { AppLink } from '../../ui/app-link.tsx';
import { ApiForm, FormError, SubmitButton, TextInput } from '../../ui/fields.tsx';
import { Empty, PageHeader, QueryView, Section, TableScroll, Time } from '../../ui/page.tsx';
import { useFormSubmit } from '../../ui/use-form-submit.ts';
import { NumberedPager, pageOf } from '../../ui/pager.tsx';

const PAGE_SIZE = 20;

function CreateAudience() {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const form = useFormSubmit({
    schema: createAudienceBody,
    fields: ['name', 'description'],
    send: (body: { name: string; description?: string }) => call(api.POST('/api/audiences', { body })),
    invalidates: [['audiences']],
    onDone: ({ data }) => navigate(`/audiences/${encodeURIComponent(data.id)}`),
  });
  return (
    <ApiForm label="Create an audience" errors={form.fieldErrors} onSubmit={() => form.submit({ name, ...(description.trim() ? { description } : {}) })}>
      <TextInput label="Name" name="name" value={name} onChange={setName} isRequired placeholder="Newsletter" />
      <TextInput label="Description" name="description" value={description} onChange={setDescription} description="Optional: who is on this list and why." />
      <SubmitButton pending={form.pending}>Create audience</SubmitButton>
      <FormError error={form.formError} />
    </ApiForm>
  );
}

export default function AudiencesPage() {
  const { query } = useLocation();
  const page = pageOf(query);
  const audiences = useQuery({
    queryKey: ['audiences', 'list', page],
    queryFn: () => call(api.GET('/api/audiences', { params: { query: { page: String(page), limit: String(PAGE_SIZE) } } })),
    placeholderData: keepPreviousData,
  });
  return (
    <>
      <PageHeader title="Audiences">
        {/* The addresses no send reaches, contacts' bounces and complaints among them: reached from here and from Emails (the navigation's order is fixed). */}
        <AppLink href="/suppressions" className="button button-secondary">
          Suppressions
        </AppLink>
      </PageHeader>
      <Section title="Your audiences">
        <QueryView query={audiences} label="Audiences">
          {({ audiences: rows, pagination }) => (
            <>
              {rows.length === 0 ? (
                <Empty>{pagination.total === 0 ? 'No audience yet. Create one below, then add or import its contacts.' : 'Nothing on this page.'}</Empty>
              ) : (
                <TableScroll label="Your audiences">
                  <table className="table">
                    <caption className="visually-hidden">Your audiences, newest first</caption>
                    <thead>
                      <tr>
                        <th scope="col">Name</th>
                        <th scope="col">Description</th>
                        <th scope="col" className="number">
                          Contacts
                        </th>
                        <th scope="col">Created</th>
                      </tr>
                    </thead>
                    <tbody>
                      {rows.map((audience) => (
                        <tr key={audience.id}>
                          <th scope="row">
                            <AppLink href={`/audiences/${encodeURIComponent(audience.id)}`}>{audience.name}</AppLink>
                          </th>
                          <td>{audience.description ?? <span className="muted">none</span>}</td>
                          <td className="number">{audience.count.toLocaleString()}</td>
                          <td>
                            <Time value={audience.createdAt} />
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </TableScroll>
              )}
              {pagination.pages > 1 ? (
                <NumberedPager
                  label="Pages of audiences"
                  page={pagination.page}
                  pages={pagination.pages}
                  total={pagination.total}
                  onPage={(next) => navigate(`/audiences?page=${next}`)}
                />
              ) : null}
            </>
          )}
        </QueryView>
      </Section>
      <Section title="Create an audience">
        <CreateAudience />
      </Section>
    </>
  );
}
