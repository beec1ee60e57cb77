/**
 * Forms: the account's forms with whether each is published and its numbers
 * (views, submissions, conversion, as the list API counts them), a new one in
 * the builder, and deleting one (with its submissions) after confirmation.
 */
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, call } from '../../api/client.ts';
import { AppLink } from '../../ui/app-link.tsx';
import { ConfirmAction } from '../../ui/confirm.tsx';
import { Badge, Empty, PageHeader, QueryView, Section, TableScroll, Time } from '../../ui/page.tsx';
import { NEWEST_FIRST, NumberedPager } from '../../ui/pager.tsx';

const PAGE_SIZE = 50;

export default function FormsPage() {
  const queryClient = useQueryClient();
  const [page, setPage] = useState(1);
  const forms = useQuery({
    queryKey: ['forms', 'list', page],
    queryFn: () => call(api.GET('/api/forms', { params: { query: { page: String(page), limit: String(PAGE_SIZE) } } })),
    placeholderData: keepPreviousData,
  });
  return (
    <>
      <PageHeader title="Forms">
        <AppLink href="/forms/new" className="button button-primary">
          New form
        </AppLink>
      </PageHeader>
      <Section title="Your forms">
        <QueryView query={forms} label="Forms">
          {({ forms: list, pagination }) =>
            list.length === 0 && page === 1 ? (
              <Empty>No form yet. A form collects sign-ups or messages on a hosted page or your own site; start with "New form".</Empty>
            ) : (
              <>
                <TableScroll label="Your forms">
                  <table className="table">
                    <caption className="visually-hidden">Your forms, newest first</caption>
                    <thead>
                      <tr>
                        <th scope="col">Name</th>
                        <th scope="col">Status</th>
                        <th scope="col" className="number">
                          Views
                        </th>
                        <th scope="col" className="number">
                          Submissions
                        </th>
                        <th scope="col" className="number">
                          Conversion
                        </th>
                        <th scope="col">Created</th>
                        <th scope="col">
                          <span className="visually-hidden">Actions</span>
                        </th>
                      </tr>
                    </thead>
                    <tbody>
                      {list.map((form) => (
                        <tr key={form.id}>
                          <th scope="row" className="cell-wrap">
                            <AppLink href={`/forms/${encodeURIComponent(form.id)}`}>{form.title}</AppLink>
                          </th>
                          <td>{form.published ? <Badge tone="good">Published</Badge> : <Badge tone="neutral">Draft</Badge>}</td>
                          <td className="number">{form.analytics.views.toLocaleString()}</td>
                          <td className="number">
                            <AppLink
                              href={`/forms/${encodeURIComponent(form.id)}/submissions`}
                              aria-label={`${form.analytics.submissions} submissions of ${form.title}`}
                            >
                              {form.analytics.submissions.toLocaleString()}
                            </AppLink>
                          </td>
                          {/* The API's rate: submissions / views × 100, one decimal, 0 with no views. */}
                          <td className="number">{form.analytics.views === 0 ? <span className="muted">—</span> : `${form.analytics.conversionRate}%`}</td>
                          <td>
                            <Time value={form.createdAt} />
                          </td>
                          <td>
                            <ConfirmAction
                              label="Delete"
                              ariaLabel={`Delete form ${form.title}`}
                              title={`Delete ${form.title}?`}
                              confirmLabel="Delete form"
                              onConfirm={async () => {
                                await call(api.DELETE('/api/forms/{id}', { params: { path: { id: form.id } } }));
                                queryClient.removeQueries({ queryKey: ['forms', form.id] });
                                await queryClient.invalidateQueries({ queryKey: ['forms', 'list'] });
                              }}
                            >
                              <p>
                                Its {form.analytics.submissions.toLocaleString()} stored submissions go with it, and its page ({form.publishedUrl}) answers "not
                                found" from now on. Contacts it added stay. This cannot be undone.
                              </p>
                            </ConfirmAction>
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </TableScroll>
                <NumberedPager label="Pages of forms" page={page} pages={pagination.pages} onPage={setPage} names={NEWEST_FIRST} hideSinglePage />
              </>
            )
          }
        </QueryView>
      </Section>
    </>
  );
}
