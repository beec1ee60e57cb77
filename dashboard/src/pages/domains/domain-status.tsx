import { Badge } from '../../ui/page.tsx';

const TONE = { verified: 'good', pending: 'warn', failed: 'bad' } as const;

export function DomainStatus({ status }: { status: keyof typeof TONE }) {
  return <Badge tone={TONE[status]}>{status}</Badge>;
}
