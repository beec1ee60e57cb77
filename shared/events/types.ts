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
  'member.added',
  'member.updated',
  'member.removed',
  'session.created',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}
