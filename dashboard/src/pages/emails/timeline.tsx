/** An email's events, oldest first, each with its time and what SES reported (the bounce's kind, the link clicked). */
import type { paths } from '../../api/client.ts';
import { Time } from '../../ui/page.tsx';

type EmailEvent = paths['/api/emails/{id}/events']['get']['responses']['200']['content']['application/json']['events'][number];

const TITLES: Record<string, string> = {
  'email.sent': 'Sent to SES',
  'email.delivered': 'Delivered',
  'email.delivery_delayed': 'Delivery delayed',
  'email.bounced': 'Bounced',
  'email.complained': 'Marked as spam',
  'email.rejected': 'Rejected by SES',
  'email.failed': 'Failed',
  'email.opened': 'Opened',
  'email.clicked': 'Link clicked',
};

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The detail worth a line: `Permanent · General`, the clicked link, the failure's message. */
function detailOf(event: EmailEvent): string | undefined {
  const data = event.data as Record<string, Record<string, unknown> | undefined>;
  if (data.bounce) return [text(data.bounce.type), text(data.bounce.subType)].filter(Boolean).join(' · ') || undefined;
  if (data.click) return text(data.click.link);
  if (data.complaint) return text(data.complaint.type);
  if (data.reject) return text(data.reject.reason);
  if (data.deliveryDelay) return text(data.deliveryDelay.type);
  if (data.error) return text(data.error.message);
  return undefined;
}

export function Timeline({ events }: { events: readonly EmailEvent[] }) {
  return (
    <ol className="timeline">
      {events.map((event) => {
        const detail = detailOf(event);
        return (
          <li key={event.id} className={`timeline-item timeline-${event.type.replace('email.', '')}`}>
            <span className="timeline-title">{TITLES[event.type] ?? event.type}</span>
            <Time value={event.createdAt} />
            {detail ? <span className="timeline-detail cell-wrap">{detail}</span> : null}
          </li>
        );
      })}
    </ol>
  );
}
