/**
 * An audience's page: its statistics by status, its contacts (searched and
 * filtered, a page at a time), importing contacts from a CSV file, exporting
 * them to CSV, renaming and deleting it.
 */
import { useQuery } from '@tanstack/react-query';
import { api, call } from '../../api/client.ts';
import type { PageProps } from '../../routes.tsx';
import { AppLink } from '../../ui/app-link.tsx';
import { Loading, PageHeader, QueryView, Section } from '../../ui/page.tsx';
import { DeleteAudience, RenameAudience } from './audience-settings.tsx';
import { AudienceStats, useAudienceStats } from './audience-stats.tsx';
import { AudienceContacts, useContactsPage } from './contacts.tsx';
import { ExportAudience } from './export-audience.tsx';
import { ImportContacts } from './import/import-contacts.tsx';

export default function AudiencePage({ params }: PageProps) {
  const id = params.id!;
  const audience = useQuery({ queryKey: ['audiences', id], queryFn: () => call(api.GET('/api/audiences/{id}', { params: { path: { id } } })) });
  // Asked for beside the audience, and the page shown once each has answered: sections filled in one after the
  // other would push those below them down as they load (Lighthouse counted 0.23 of layout shift at 10,000 contacts).
  const stats = useAudienceStats(id);
  const { contacts } = useContactsPage(id);
  const answered = [stats, contacts].every((query) => query.data !== undefined || query.isError);
  return (
    <>
      <PageHeader title={audience.data?.data.name ?? 'Audience'}>
        <AppLink href="/audiences" className="button button-quiet">
          All audiences
        </AppLink>
      </PageHeader>
      <QueryView query={audience} label="The audience">
        {({ data }) =>
          answered ? (
            <>
              {data.description ? <p>{data.description}</p> : null}
              <Section title="Statistics">
                <AudienceStats id={id} createdAt={data.createdAt} />
              </Section>
              <Section title="Contacts">
                <AudienceContacts audienceId={id} />
              </Section>
              <Section title="Import from CSV">
                <ImportContacts audienceId={id} />
              </Section>
              <Section title="Export">
                <ExportAudience id={id} />
              </Section>
              <Section title="Settings">
                <RenameAudience id={id} name={data.name} description={data.description} />
                <div className="page-actions">
                  <DeleteAudience id={id} name={data.name} />
                </div>
              </Section>
            </>
          ) : (
            <Loading label="the audience" />
          )
        }
      </QueryView>
    </>
  );
}
