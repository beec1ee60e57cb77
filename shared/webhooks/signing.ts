/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com): the
 * `standardwebhooks` package signs `id.timestamp.body` with HMAC-SHA256, so
 * any receiver verifies with that package or any implementation of the spec.
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** 32 random bytes: the spec asks for 24 to 64; `whsec_` + base64 is its secret format. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The three headers of one attempt; `webhook-id` is the event id on every attempt, so receivers can deduplicate. */
export function signedHeaders(secret: string, eventId: string, body: string, at: Date): Record<string, string> {
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(eventId, at, body),
  };
}
