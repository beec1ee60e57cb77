/**
 * The signed link of a form's double opt-in email. Its token names the
 * account, the address, the audience it confirms and the form that asked, all
 * under one mac with a context of its own: it cannot be bent to another
 * audience or form, and neither it nor an unsubscribe token verifies as the
 * other. The format is the subscription links' (`<payload>.<mac>`, base64url).
 */
import * as v from 'valibot';
import { isId } from '#shared/platform/ids.ts';
import { emailAddress } from '#shared/platform/schema/common.ts';
import { publicBase } from '#shared/platform/public-urls.ts';
import { signingSecret } from '#shared/platform/signing/secret.ts';
import { normaliseEmail, openToken, sealToken } from '#shared/sending/subscription-links.ts';

export interface ConfirmationClaims {
  accountId: string;
  /** Trimmed and lower-cased, as contacts store it. */
  email: string;
  audienceId: string;
  formId: string;
  issuedAt: Date;
}

const MAC_CONTEXT = 'postlane/form-confirmation/v1\n';

/** The address goes last: the other parts never hold a line break, so splitting on them is unambiguous. */
export function signConfirmationToken(secret: Buffer, claims: ConfirmationClaims): string {
  const { accountId, audienceId, formId, issuedAt, email } = claims;
  return sealToken(secret, MAC_CONTEXT, [accountId, Math.floor(issuedAt.getTime() / 1000), audienceId, formId, normaliseEmail(email)].join('\n'));
}

/** The claims of a confirmation token this key signed; undefined for anything else. */
export function readConfirmationToken(secret: Buffer, token: string): ConfirmationClaims | undefined {
  const payload = openToken(secret, MAC_CONTEXT, token);
  if (payload === undefined) return undefined;
  const [accountId = '', issuedAt = '', audienceId = '', formId = '', ...emailParts] = payload.split('\n');
  const email = v.safeParse(emailAddress, emailParts.join('\n'));
  if (!isId('acc', accountId) || !isId('aud', audienceId) || !isId('frm', formId) || !/^\d{1,12}$/.test(issuedAt) || !email.success) return undefined;
  return { accountId, email: email.output, audienceId, formId, issuedAt: new Date(Number(issuedAt) * 1000) };
}

/** Verifies a token with the deployment's key. */
export async function verifyConfirmationToken(token: string): Promise<ConfirmationClaims | undefined> {
  return readConfirmationToken(await signingSecret(), token);
}

/**
 * The link that confirms a pending contact: `https://api.example.com/confirm/<token>`.
 * Opening it shows a page with a button; only the button's POST confirms.
 */
export async function confirmationUrl(claims: ConfirmationClaims): Promise<string> {
  return `${publicBase()}/confirm/${signConfirmationToken(await signingSecret(), claims)}`;
}
