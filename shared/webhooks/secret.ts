/**
 * A new endpoint's signing secret, apart from signing.ts: the webhook routes
 * make secrets, only the delivery worker signs, and the `standardwebhooks`
 * package (with its SHA-256 and base64 code, about 12 KB) stays out of the
 * routes' bundles this way, since esbuild keeps a package's top level when it
 * cannot tell it is free of side effects.
 */
import { randomBytes } from 'node:crypto';

/** 32 random bytes: the Standard Webhooks spec asks for 24 to 64; `whsec_` + base64 is its secret format. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}
