/**
 * Signed per-recipient links for the public unsubscribe and preference pages.
 *
 * A token is `<payload>.<mac>`, both base64url: the payload is the account id,
 * the issue time (Unix seconds), the recipient's normalised address and, for a
 * broadcast's message, the broadcast id (a fourth line that links made before
 * it lack: an address holds no newline, so the two never mix); the mac
 * is HMAC-SHA256 over it with the deployment's signing key. Nobody without the
 * key can make a token for another address or account, and any change to a
 * token makes it invalid. Tokens do not expire: an unsubscribe link must keep
 * working long after the email was sent (CAN-SPAM asks for 30 days at least,
 * and mail sits in inboxes for years); the issue time is there so a policy on
 * age can be added without changing the format.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import * as v from 'valibot';
import { isId } from '#shared/platform/ids.ts';
import { emailAddress } from '#shared/platform/schema/common.ts';
import { publicBase } from '#shared/platform/public-urls.ts';
import { signingSecret } from '#shared/platform/signing/secret.ts';

export interface SubscriptionClaims {
  accountId: string;
  /** Trimmed and lower-cased, as contacts store it. */
  email: string;
  issuedAt: Date;
  /** The broadcast whose message carried the link: its results count the unsubscribe. */
  broadcastId?: string;
}

export interface SubscriptionLinks {
  /** The signed token both pages' addresses end in: a message that shows it is bound to its recipient. */
  token: string;
  /** Shows a confirmation page; a POST to it unsubscribes. */
  unsubscribeUrl: string;
  /** Lists the address's audiences, each of which it can leave or rejoin. */
  preferencesUrl: string;
  /**
   * For `List-Unsubscribe` with `List-Unsubscribe-Post: List-Unsubscribe=One-Click`
   * (RFC 8058): the unsubscribe URL itself, whose POST unsubscribes at once
   * whatever the body; mail software that only GETs it lands on the confirmation page.
   */
  oneClickUrl: string;
}

/** Binds the mac to this use and format, so the key could sign other things without confusion. */
const MAC_CONTEXT = 'postlane/subscription-link/v1\n';
const MAC_BYTES = 32;
/** An account id, a timestamp, audience and form ids (confirmation links) and a 254-character address fit with room to spare. */
const MAX_TOKEN_LENGTH = 640;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * The bytes of canonical unpadded base64url text; undefined for anything else.
 * Node's decoder ignores stray trailing characters and bits, so without the
 * round trip an altered token could still verify.
 */
function decodeBase64url(text: string): Buffer | undefined {
  if (!BASE64URL.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : undefined;
}

function mac(secret: Buffer, context: string, payload: string): Buffer {
  return createHmac('sha256', secret).update(context).update(payload).digest();
}

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * `<payload>.<mac>` with the mac bound to `context` (the link's use and
 * format), so a token of one kind of link never verifies as another.
 */
export function sealToken(secret: Buffer, context: string, payload: string): string {
  return `${Buffer.from(payload, 'utf8').toString('base64url')}.${mac(secret, context, payload).toString('base64url')}`;
}

/** The payload of a token sealed under `context` with this key; undefined for anything else (tampered, truncated, foreign, garbage). */
export function openToken(secret: Buffer, context: string, token: string): string | undefined {
  if (token.length > MAX_TOKEN_LENGTH) return undefined;
  const [encodedPayload, encodedMac, ...rest] = token.split('.');
  if (encodedPayload === undefined || encodedMac === undefined || rest.length > 0) return undefined;
  const payloadBytes = decodeBase64url(encodedPayload);
  const given = decodeBase64url(encodedMac);
  if (!payloadBytes || !given || given.length !== MAC_BYTES) return undefined;
  const payload = payloadBytes.toString('utf8');
  return timingSafeEqual(given, mac(secret, context, payload)) ? payload : undefined;
}

/** `signSubscriptionToken(key, 'acc_…', 'Ana@Example.com', now)` gives `YWNjX…LmNvbQ.q1w2…` */
export function signSubscriptionToken(secret: Buffer, accountId: string, email: string, issuedAt: Date, broadcastId?: string): string {
  const fields = [accountId, Math.floor(issuedAt.getTime() / 1000), normaliseEmail(email), ...(broadcastId === undefined ? [] : [broadcastId])];
  return sealToken(secret, MAC_CONTEXT, fields.join('\n'));
}

/** The claims of a token this key signed; undefined for anything else (tampered, truncated, foreign, garbage). */
export function readSubscriptionToken(secret: Buffer, token: string): SubscriptionClaims | undefined {
  const payload = openToken(secret, MAC_CONTEXT, token);
  if (payload === undefined) return undefined;
  const [accountId = '', issuedAt = '', address = '', broadcastId, ...rest] = payload.split('\n');
  const email = v.safeParse(emailAddress, address);
  if (!isId('acc', accountId) || !/^\d{1,12}$/.test(issuedAt) || !email.success || rest.length > 0) return undefined;
  if (broadcastId !== undefined && !isId('bro', broadcastId)) return undefined;
  return { accountId, email: email.output, issuedAt: new Date(Number(issuedAt) * 1000), ...(broadcastId === undefined ? {} : { broadcastId }) };
}

/** Verifies a token with the deployment's key. */
export async function verifySubscriptionToken(token: string): Promise<SubscriptionClaims | undefined> {
  return readSubscriptionToken(await signingSecret(), token);
}

/**
 * The recipient's signed links, for the `unsubscribeUrl` and `preferencesUrl`
 * built-ins and the `List-Unsubscribe` header; `broadcastId` names the
 * broadcast whose message carries them.
 *
 * With `PUBLIC_BASE_URL=https://api.example.com`, `await subscriptionLinks('acc_…', 'ana@example.com')` gives
 * `{unsubscribeUrl: 'https://api.example.com/unsubscribe/<token>', preferencesUrl: 'https://api.example.com/preferences/<token>', oneClickUrl: …}`
 */
export async function subscriptionLinks(accountId: string, email: string, broadcastId?: string): Promise<SubscriptionLinks> {
  const token = signSubscriptionToken(await signingSecret(), accountId, email, new Date(), broadcastId);
  const base = publicBase();
  const unsubscribeUrl = `${base}/unsubscribe/${token}`;
  return { token, unsubscribeUrl, preferencesUrl: `${base}/preferences/${token}`, oneClickUrl: unsubscribeUrl };
}
