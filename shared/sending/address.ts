/**
 * Mailbox strings as clients give them (`ann@example.com`, `Ann <ann@example.com>`,
 * `"Acme, Inc." <news@acme.com>`), and as SES wants them back.
 */
import * as v from 'valibot';
import { emailAddress } from '#shared/platform/schema/common.ts';

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
/** Printable ASCII: what a quoted string holds once `"` and `\` are escaped. */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
/**
 * UTF-8 bytes per RFC 2047 encoded word: `=?UTF-8?B?` and `?=` around 60
 * characters of base64 keep each word within the RFC's 75 characters.
 */
const ENCODED_WORD_BYTES = 45;

/** `text` as RFC 2047 encoded words of whole characters, each at most 75 characters, separated by spaces. */
function encodedWords(text: string): string {
  const words: string[] = [];
  let word = '';
  for (const character of text) {
    if (Buffer.byteLength(word + character, 'utf8') > ENCODED_WORD_BYTES) {
      words.push(word);
      word = '';
    }
    word += character;
  }
  words.push(word);
  return words.map((part) => `=?UTF-8?B?${Buffer.from(part, 'utf8').toString('base64')}?=`).join(' ');
}

/**
 * A display name (the `phrase` of RFC 5322) as a header carries it: as it is
 * when it is atoms, quoted (with `"` and `\` escaped) when it has specials
 * (`,` `.` `@`…), and as RFC 2047 encoded words when it is not ASCII, which
 * SES takes only so.
 *
 * `formatPhrase('Acme, Inc.')` gives `"Acme, Inc."`
 */
export function formatPhrase(name: string): string {
  if (PLAIN_NAME.test(name)) return name;
  if (PRINTABLE_ASCII.test(name)) return `"${name.replace(/(["\\])/g, '\\$1')}"`;
  return encodedWords(name);
}

/**
 * The mailbox as a header value.
 *
 * `formatMailbox({ name: 'Acme, Inc.', address: 'a@acme.com' })` gives `"Acme, Inc." <a@acme.com>`
 */
export function formatMailbox(mailbox: Mailbox): string {
  const { name, address } = mailbox;
  return name ? `${formatPhrase(name)} <${address}>` : address;
}

/** The domain part of an address: `news@mail.example.com` gives `mail.example.com`. */
export function domainOf(address: string): string {
  return address.slice(address.lastIndexOf('@') + 1);
}
