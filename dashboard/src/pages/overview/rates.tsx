/**
 * Bounce and complaint rates beside the limits senders are held to, with a
 * warning when one is crossed (docs/dashboard.md, "Overview"):
 * - complaints under 0.3%: Gmail's and Yahoo's rule for bulk senders since
 *   February 2024 (Google's Email sender guidelines: never reach a spam rate
 *   of 0.3%; Yahoo's Sender Best Practices say the same);
 * - bounces under 4%: a margin under the 5% at which SES puts an account
 *   under review (SES Developer Guide, "Reputation metrics messages"; sending
 *   is paused at 10%), so the warning comes before the review, not with it.
 */
import { Badge } from '../../ui/page.tsx';

export const COMPLAINT_LIMIT = 0.3;
export const BOUNCE_LIMIT = 4;

interface Rates {
  deliveryRate: number;
  bounceRate: number;
  complaintRate: number;
  openRate: number;
  clickRate: number;
}

function Rate(props: { title: string; value: number; limit: number; count: number; why: string }) {
  const crossed = props.value >= props.limit;
  return (
    <div className={`card${crossed ? ' card-warn' : ''}`}>
      <h2 className="card-title">{props.title}</h2>
      <p className="card-value">
        {props.value.toFixed(1)}% {crossed ? <Badge tone="bad">above the limit</Badge> : <Badge tone="good">within the limit</Badge>}
      </p>
      <p className="muted">
        {props.count.toLocaleString()} over this period. Keep it under {props.limit}%: {props.why}
      </p>
      {crossed ? (
        <p className="notice notice-warn" role="alert">
          {props.title} is {props.value.toFixed(1)}%, at or above {props.limit}%. Find the cause in Emails (filter by status) before sending more.
        </p>
      ) : null}
    </div>
  );
}

export function Rates({ rates, totals }: { rates: Rates; totals: { bounced: number; complained: number } }) {
  return (
    <>
      <Rate
        title="Bounce rate"
        value={rates.bounceRate}
        limit={BOUNCE_LIMIT}
        count={totals.bounced}
        why="SES reviews an account from 5% and pauses its sending at 10%."
      />
      <Rate
        title="Complaint rate"
        value={rates.complaintRate}
        limit={COMPLAINT_LIMIT}
        count={totals.complained}
        why="Gmail and Yahoo filter or refuse bulk mail above it."
      />
    </>
  );
}
