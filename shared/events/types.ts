/**
 * The event catalogue (docs/webhooks.md): the types a webhook endpoint may
 * subscribe to and the message log filters by. In the model layer because
 * the request schemas check `type` and `events` against it.
 */
export const EVENT_TYPES = [
  'email.sent',
  'email.delivered',
  'email.delivery_delayed',
  'email.bounced',
  'email.complained',
  'email.rejected',
  'email.failed',
  'email.opened',
  'email.clicked',
  'contact.created',
  'contact.updated',
  'contact.deleted',
  'contact.unsubscribed',
  'form.submitted',
  'broadcast.sent',
  'webhook.disabled',
  'api_key.created',
  'api_key.updated',
  'api_key.revoked',
  'domain.created',
  'domain.verified',
  'domain.deleted',
  'member.added',
  'member.updated',
  'member.removed',
  'session.created',
  'suppression.added',
  'suppression.removed',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

/**
 * Who made a change an audit event reports (`api_key.*`, `domain.*`): a
 * member of the account through the dashboard, an API key (its id, never
 * its secret), or the operator through the admin CLI.
 */
export interface Actor {
  type: 'member' | 'key' | 'operator';
  id: string;
}

/** The admin CLI: the operator has no id of their own in the service, so every operator change names the CLI. */
export const OPERATOR: Actor = { type: 'operator', id: 'admin-cli' };
