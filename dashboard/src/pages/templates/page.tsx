/** Templates: the account's templates (name, subject, last change), a new one, and deleting one after confirmation. */
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, call } from '../../api/client.ts';
import { AppLink } from '../../ui/app-link.tsx';
import { ConfirmAction } from '../../ui/confirm.tsx';
import { Empty, PageHeader, QueryView, Section, Time, TableScroll } from '../../ui/page.tsx';
import { NEWEST_FIRST, NumberedPager } from '../../ui/pager.tsx';

const PAGE_SIZE = 50;

export default function TemplatesPage() {
  const queryClient = useQueryClient();
  const [page, setPage] = useState(1);
  const templates = useQuery({
    queryKey: ['templates', 'list', page],
    queryFn: () => call(api.GET('/api/templates', { params: { query: { page: String(page), limit: String(PAGE_SIZE) } } })),
    placeholderData: keepPreviousData,
  });
  return (
    <>
      <PageHeader title="Templates">
        <AppLink href="/templates/new" className="button button-primary">
          New template
        </AppLink>
      </PageHeader>
      <Section title="Your templates">
        <QueryView query={templates} label="Templates">
          {({ templates: list, pagination }) =>
            list.length === 0 && page === 1 ? (
              <Empty>No template yet. A template is an email's design with variables, sent by naming its id; start with "New template".</Empty>
            ) : (
              <>
                <TableScroll label="Your templates">
                  <table className="table">
                    <caption className="visually-hidden">Your templates, newest first</caption>
                    <thead>
                      <tr>
                        <th scope="col">Name</th>
                        <th scope="col">Subject</th>
                        <th scope="col">Updated</th>
                        <th scope="col">
                          <span className="visually-hidden">Actions</span>
                        </th>
                      </tr>
                    </thead>
                    <tbody>
                      {list.map((template) => (
                        <tr key={template.id}>
                          <th scope="row">
                            <AppLink href={`/templates/${encodeURIComponent(template.id)}`}>{template.name}</AppLink>
                          </th>
                          <td className="cell-wrap">{template.subject}</td>
                          <td>
                            <Time value={template.updatedAt} />
                          </td>
                          <td>
                            <ConfirmAction
                              label="Delete"
                              ariaLabel={`Delete template ${template.name}`}
                              title={`Delete ${template.name}?`}
                              confirmLabel="Delete template"
                              onConfirm={async () => {
                                await call(api.DELETE('/api/templates/{id}', { params: { path: { id: template.id } } }));
                                queryClient.removeQueries({ queryKey: ['templates', template.id] });
                                await queryClient.invalidateQueries({ queryKey: ['templates', 'list'] });
                              }}
                            >
                              <p>Sends that name this template ({template.id}) fail from now on. This cannot be undone.</p>
                            </ConfirmAction>
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </TableScroll>
                <NumberedPager label="Pages of templates" page={page} pages={pagination.pages} onPage={setPage} names={NEWEST_FIRST} hideSinglePage />
              </>
            )
          }
        </QueryView>
      </Section>
    </>
  );
}
