/**
 * An email's page: its addresses as the message log recorded them, its status,
 * what it held (HTML, text and headers: ./email-content.tsx), and what
 * happened to it (sent, delivered, opened, bounced…) as a timeline, oldest
 * first.
 */
import { useQuery } from '@tanstack/react-query';
import { AppLink } from '../../ui/app-link.tsx';
import { api, call } from '../../api/client.ts';
import type { PageProps } from '../../routes.tsx';
import { Empty, PageHeader, QueryView, Section, Time } from '../../ui/page.tsx';
import { EmailStatus, type EmailRecord } from './email-table.tsx';
import { Timeline } from './timeline.tsx';
import { EmailContent } from './email-content.tsx';

function Addresses({ email }: { email: EmailRecord }) {
  const rows: [string, string | null][] = [
    ['From', email.from],
    ['To', email.to],
    ['Cc', email.cc.join(', ') || null],
    ['Bcc', email.bcc.join(', ') || null],
    ['Reply-To', email.replyTo],
    ['Subject', email.subject],
    ['Message-ID', email.sesMessageId],
  ];
  return (
    <dl className="facts">
      {rows
        .filter(([, value]) => value)
        .map(([name, value]) => (
          <div key={name}>
            <dt>{name}</dt>
            <dd className="cell-wrap">{value}</dd>
          </div>
        ))}
    </dl>
  );
}

function Summary({ email }: { email: EmailRecord }) {
  return (
    <dl className="facts">
      <div>
        <dt>Status</dt>
        <dd>
          <EmailStatus status={email.status} />
          {email.error ? <span className="cell-wrap"> {email.error.message}</span> : null}
        </dd>
      </div>
      <div>
        <dt>Sent</dt>
        <dd>
          <Time value={email.createdAt} />
        </dd>
      </div>
      <div>
        <dt>Kind</dt>
        <dd>
          {email.type}
          {email.test ? ' (test key: not delivered)' : ''}
        </dd>
      </div>
      {email.broadcastId ? (
        <div>
          <dt>Broadcast</dt>
          <dd>
            <AppLink href={`/emails?broadcastId=${encodeURIComponent(email.broadcastId)}`}>{email.broadcastId}</AppLink>
          </dd>
        </div>
      ) : null}
      <div>
        <dt>Opens</dt>
        <dd>{email.opens}</dd>
      </div>
      <div>
        <dt>Clicks</dt>
        <dd>{email.clicks}</dd>
      </div>
      <div>
        <dt>Tracking id</dt>
        <dd className="cell-wrap">{email.trackingId}</dd>
      </div>
    </dl>
  );
}

export default function EmailPage({ params }: PageProps) {
  const id = params.id!;
  const email = useQuery({ queryKey: ['emails', id], queryFn: () => call(api.GET('/api/emails/{id}', { params: { path: { id } } })) });
  const events = useQuery({
    queryKey: ['emails', id, 'events'],
    queryFn: () => call(api.GET('/api/emails/{id}/events', { params: { path: { id }, query: { limit: '100' } } })),
  });
  return (
    <>
      <PageHeader title={email.data ? email.data.data.subject || '(no subject)' : 'Email'}>
        <AppLink href="/emails" className="button button-quiet">
          All emails
        </AppLink>
      </PageHeader>
      <QueryView query={email} label="The email">
        {({ data }) => (
          <div className="columns">
            <Section title="Summary">
              <Summary email={data} />
            </Section>
            <Section title="Addresses">
              <Addresses email={data} />
            </Section>
          </div>
        )}
      </QueryView>
      <Section title="Content">
        <EmailContent id={id} />
      </Section>
      <Section title="Timeline">
        <QueryView query={events} label="The events">
          {(page) => (page.events.length === 0 ? <Empty>No event recorded yet.</Empty> : <Timeline events={page.events} />)}
        </QueryView>
      </Section>
    </>
  );
}
