/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com): the
 * `standardwebhooks` package signs `id.timestamp.body` with HMAC-SHA256, so
 * any receiver verifies with that package or any implementation of the spec.
 * Secrets are made in secret.ts.
 */
import { Webhook } from 'standardwebhooks';

/** The three headers of one attempt; `webhook-id` is the event id on every attempt, so receivers can deduplicate. */
export function signedHeaders(secret: string, eventId: string, body: string, at: Date): Record<string, string> {
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(eventId, at, body),
  };
}
