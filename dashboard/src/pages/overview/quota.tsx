/**
 * This month's emails against the account's monthly quota, as GET /api/stats
 * answers them (`usage`): a meter with the numbers, and a warning from
 * QUOTA_WARNING on, before sends start to be refused (docs/dashboard.md,
 * "The Overview's limits").
 */
import { Label } from 'react-aria-components/Label';
import { Meter } from 'react-aria-components/Meter';
import { Badge } from '../../ui/page.tsx';

/** Share of the quota (percent) from which the Overview warns: a month's last fifth goes in days for an account that sends in bursts. */
export const QUOTA_WARNING = 80;

export interface Usage {
  month: string;
  sent: number;
  quota: number;
  resetsAt: string;
}

/** `1 December`: the quota's months are UTC months. */
function dayOfMonth(iso: string): string {
  return new Date(iso).toLocaleDateString(undefined, { day: 'numeric', month: 'long', timeZone: 'UTC' });
}

function percentOf(usage: Usage): number {
  return usage.quota === 0 ? 100 : (usage.sent / usage.quota) * 100;
}

export function QuotaCard({ usage }: { usage: Usage }) {
  const used = percentOf(usage);
  const state = used >= 100 ? 'over' : used >= QUOTA_WARNING ? 'near' : 'fine';
  const resets = dayOfMonth(usage.resetsAt);
  const numbers = `${usage.sent.toLocaleString()} of ${usage.quota.toLocaleString()} emails (${Math.floor(used)}%)`;
  return (
    <div className={`card${state === 'fine' ? '' : ' card-warn'}`}>
      <h2 className="card-title">Sent this month</h2>
      <p className="card-value">{usage.sent.toLocaleString()}</p>
      <Meter className={`meter meter-${state}`} value={Math.min(usage.sent, usage.quota)} maxValue={Math.max(usage.quota, 1)} valueLabel={numbers}>
        {({ percentage, valueText }) => (
          <>
            <div className="meter-label">
              <Label>Monthly quota</Label>
              <span className="meter-value">{valueText}</span>
            </div>
            <div className="meter-track" aria-hidden="true">
              <div className="meter-fill" style={{ width: `${percentage}%` }} />
            </div>
          </>
        )}
      </Meter>
      <p className="muted">
        {state === 'over' ? <Badge tone="bad">quota used up</Badge> : state === 'near' ? <Badge tone="warn">near the quota</Badge> : null} Starts again on{' '}
        {resets} (UTC); test keys use none.
      </p>
      {state === 'fine' ? null : (
        <p className="notice notice-warn" role="alert">
          {state === 'over'
            ? `The monthly quota of ${usage.quota.toLocaleString()} emails is used up: sends are refused (QUOTA_EXCEEDED) and broadcasts pause until ${resets}.`
            : `${Math.floor(used)}% of the monthly quota is used: once all ${usage.quota.toLocaleString()} are, sends are refused until ${resets}.`}
        </p>
      )}
    </div>
  );
}
