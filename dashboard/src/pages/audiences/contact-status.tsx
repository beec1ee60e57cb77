/** A contact's status as a badge, toned by whether mail reaches it. */
import type { paths } from '../../api/client.ts';
import { Badge } from '../../ui/page.tsx';

export type ContactStatus = paths['/api/contacts/{id}']['get']['responses']['200']['content']['application/json']['data']['status'];

export const CONTACT_STATUSES: readonly ContactStatus[] = ['subscribed', 'pending', 'unsubscribed', 'bounced', 'complained'];

const TONES: Record<ContactStatus, 'good' | 'bad' | 'warn' | 'neutral'> = {
  subscribed: 'good',
  pending: 'neutral',
  unsubscribed: 'warn',
  bounced: 'bad',
  complained: 'bad',
};

export function ContactStatusBadge({ status }: { status: ContactStatus }) {
  return <Badge tone={TONES[status]}>{status}</Badge>;
}
