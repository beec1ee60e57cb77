/**
 * Mailbox strings as clients give them (`ann@example.com`, `Ann <ann@example.com>`,
 * `"Acme, Inc." <news@acme.com>`), and as SES wants them back.
 */
import * as v from 'valibot';
import { emailAddress } from '#shared/schemas/common.ts';

export interface Mailbox {
  /** Display name, unquoted; absent for a bare address. */
  name?: string;
  /** Trimmed and lower-cased, like every address the service stores. */
  address: string;
}

const NAME_AND_ADDRESS = /^(.*?)\s*<([^<>]*)>$/s;

/** The mailbox in `value`, or undefined when its address is not a valid email address. */
export function parseMailbox(value: string): Mailbox | undefined {
  const trimmed = value.trim();
  const match = NAME_AND_ADDRESS.exec(trimmed);
  const rawName = match ? match[1]!.trim() : '';
  const quoted = /^".*"$/s.test(rawName);
  // An unquoted name holding angle brackets is two mailboxes, or an attempt to look like one.
  if (!quoted && /[<>]/.test(rawName)) return undefined;
  const name = quoted ? rawName.slice(1, -1).replace(/\\(.)/g, '$1').trim() : rawName;
  const address = v.safeParse(emailAddress, match ? match[2]! : trimmed);
  if (!address.success) return undefined;
  return name ? { name, address: address.output } : { address: address.output };
}

/** Characters RFC 5322 allows in an unquoted display name (an `atom` phrase). */
const PLAIN_NAME = /^[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~ ]+$/;

/**
 * The mailbox as a header value. SES takes non-ASCII display names only as an
 * RFC 2047 encoded word, and names with specials (`,` `.` `@`…) quoted.
 *
 * `formatMailbox({ name: 'Acme, Inc.', address: 'a@acme.com' })` gives `"Acme, Inc." <a@acme.com>`
 */
export function formatMailbox(mailbox: Mailbox): string {
  const { name, address } = mailbox;
  if (!name) return address;
  if (PLAIN_NAME.test(name)) return `${name} <${address}>`;
  if (/^[\x20-\x7e]*$/.test(name)) return `"${name.replace(/(["\\])/g, '\\$1')}" <${address}>`;
  return `=?UTF-8?B?${Buffer.from(name, 'utf8').toString('base64')}?= <${address}>`;
}

/** The domain part of an address: `news@mail.example.com` gives `mail.example.com`. */
export function domainOf(address: string): string {
  return address.slice(address.lastIndexOf('@') + 1);
}
