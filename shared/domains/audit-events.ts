/**
 * The domains' audit events (docs/webhooks.md, "Audit events"), each written
 * in the transaction of the change it reports: `data` names the domain and
 * who acted.
 */
import { auditWrite, type Actor } from '#shared/events/service.ts';
import type { TransactItems } from '#shared/platform/dynamodb/client.ts';
import type { DomainRecord } from './store.ts';

type Audited = Pick<DomainRecord, 'accountId' | 'domainId' | 'domain'>;

function audit(type: 'domain.created' | 'domain.verified' | 'domain.deleted', record: Audited, actor: Actor, sourceKey: string, now: Date): TransactItems {
  return auditWrite(record.accountId, type, { domainId: record.domainId, domain: record.domain }, actor, sourceKey, now.getTime());
}

export const domainEvents = {
  created: (record: Audited, actor: Actor, now: Date) => audit('domain.created', record, actor, `domain:${record.domainId}:created`, now),
  /** A domain may stop being verified and verify again: each time is a change of its own. */
  verified: (record: Audited, actor: Actor, now: Date) =>
    audit('domain.verified', record, actor, `domain:${record.domainId}:verified:${now.toISOString()}`, now),
  deleted: (record: Audited, actor: Actor, now: Date) => audit('domain.deleted', record, actor, `domain:${record.domainId}:deleted`, now),
};

/** A domain recorded new: created, and verified too when the operator's check found it so (`admin domain verify`). */
export function newDomainEvents(record: DomainRecord, actor: Actor, now: Date): TransactItems {
  return [...domainEvents.created(record, actor, now), ...(record.verified ? domainEvents.verified(record, actor, now) : [])];
}
