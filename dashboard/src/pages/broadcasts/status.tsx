/** A broadcast's status as a badge, and its progress as a bar with the numbers beside it. */
import type { paths } from '../../api/client.ts';
import { Badge } from '../../ui/page.tsx';

export type Broadcast = paths['/api/broadcasts/{id}']['get']['responses']['200']['content']['application/json']['data'];

const TONE = { draft: 'neutral', scheduled: 'warn', sending: 'warn', paused: 'bad', sent: 'good', cancelled: 'neutral' } as const;

export function BroadcastStatus({ broadcast }: { broadcast: Pick<Broadcast, 'status' | 'pausedReason'> }) {
  return (
    <Badge tone={TONE[broadcast.status]}>
      {broadcast.status}
      {broadcast.pausedReason ? `: ${broadcast.pausedReason}` : ''}
    </Badge>
  );
}

/** Sent, skipped and failed out of the recipients; nothing to show before sending starts. */
export function Progress({ broadcast, label }: { broadcast: Broadcast; label: string }) {
  const { recipients, sent, suppressed, failed } = broadcast.counts;
  if (broadcast.status === 'draft' || broadcast.status === 'scheduled') return <span className="muted">not started</span>;
  const done = sent + suppressed + failed;
  return (
    <span className="progress">
      <progress max={Math.max(recipients, 1)} value={done} aria-label={label} />
      <span>
        {sent} sent of {recipients}
        {suppressed ? `, ${suppressed} skipped` : ''}
        {failed ? `, ${failed} failed` : ''}
      </span>
    </span>
  );
}

/** Whether the broadcast is still moving: its page and the list poll while it is. */
export const isActive = (status: Broadcast['status']) => status === 'sending' || status === 'scheduled';
