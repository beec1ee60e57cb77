/** Emails as a table (the Overview's latest and the message log): recipient, subject linking to the email's page, status, time. */
import { AppLink } from '../../ui/app-link.tsx';
import type { paths } from '../../api/client.ts';
import { Badge, Time, TableScroll } from '../../ui/page.tsx';

export type EmailRecord = paths['/api/emails']['get']['responses']['200']['content']['application/json']['emails'][number];

const TONES: Record<EmailRecord['status'], 'good' | 'bad' | 'warn' | 'neutral'> = {
  delivered: 'good',
  sent: 'neutral',
  queued: 'neutral',
  sending: 'neutral',
  bounced: 'bad',
  complained: 'bad',
  failed: 'bad',
  rejected: 'bad',
  suppressed: 'warn',
};

export function EmailStatus({ status }: { status: EmailRecord['status'] }) {
  return <Badge tone={TONES[status]}>{status}</Badge>;
}

export function EmailTable({ emails, caption }: { emails: readonly EmailRecord[]; caption: string }) {
  return (
    <TableScroll label={caption}>
      <table className="table">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Subject</th>
            <th scope="col">To</th>
            <th scope="col">Status</th>
            <th scope="col">Sent</th>
          </tr>
        </thead>
        <tbody>
          {emails.map((email) => (
            <tr key={email.id}>
              <th scope="row">
                <AppLink href={`/emails/${encodeURIComponent(email.id)}`}>{email.subject || '(no subject)'}</AppLink>
                {email.test ? <span className="muted"> · test</span> : null}
              </th>
              <td>{email.to}</td>
              <td>
                <EmailStatus status={email.status} />
              </td>
              <td>
                <Time value={email.createdAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}
