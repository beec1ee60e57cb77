import { createHash, randomBytes } from 'node:crypto';

/** Base62 in ASCII order, so that ids sort by the time they were made. */
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const TIME_CHARS = 8; // 62^8 ms reaches the year 8888
const RANDOM_CHARS = 12; // ~71 bits, so two ids of one millisecond never collide in practice

export const ID_BODY_LENGTH = TIME_CHARS + RANDOM_CHARS;

export type IdPrefix = 'acc' | 'key' | 'con' | 'aud' | 'exp' | 'tpl' | 'frm' | 'sub' | 'eml' | 'dom' | 'att' | 'evt' | 'whk' | 'dlv' | 'bro' | 'mem' | 'ses';

function encodeTime(ms: number): string {
  let out = '';
  let rest = ms;
  for (let i = 0; i < TIME_CHARS; i++) {
    out = ALPHABET[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out;
}

/** Random base62 text; rejection sampling keeps every character equally likely. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

/** Adds one to a base62 string; `undefined` when it would overflow. */
function increment(text: string): string | undefined {
  const chars = text.split('');
  for (let index = chars.length - 1; index >= 0; index--) {
    const value = ALPHABET.indexOf(chars[index]!);
    if (value < 61) {
      chars[index] = ALPHABET[value + 1]!;
      return chars.join('');
    }
    chars[index] = ALPHABET[0]!;
  }
  return undefined;
}

let last = { time: '', random: '' };

/**
 * A new time-ordered identifier, newest sorting last: `newId('con')` gives
 * `con_0Wd3kF9a7Qx2LmP0aZbT`. Within one process ids only grow, also within one
 * millisecond (the random part is incremented), so a bulk import keeps its order.
 */
export function newId(prefix: IdPrefix, now = Date.now()): string {
  const time = encodeTime(now);
  const next = time <= last.time ? increment(last.random) : undefined;
  // biome-ignore lint/complexity/useMathMinMax: the later of two base62 strings, which Math.max would turn into NaN
  last = next ? { time: last.time, random: next } : { time: time > last.time ? time : last.time, random: randomBase62(RANDOM_CHARS) };
  return `${prefix}_${last.time}${last.random}`;
}

/**
 * An id whose time part is exactly `ms`, also when ids of later times were
 * made before (newId never goes back): for records that carry the time of
 * what they describe, such as events, whose lists are ranges of dates.
 */
export function idAt(prefix: IdPrefix, ms: number): string {
  return `${prefix}_${encodeTime(ms)}${randomBase62(RANDOM_CHARS)}`;
}

/**
 * An id of time `ms` whose other part is fixed by `seed`: the same seed gives
 * the same id, so a write keyed by it can be made again without a second item
 * (a broadcast's email to one contact, whichever worker attempt sends it).
 */
export function derivedId(prefix: IdPrefix, ms: number, seed: string): string {
  const digest = createHash('sha256').update(seed).digest();
  let random = '';
  for (let index = 0; index < RANDOM_CHARS; index++) random += ALPHABET[digest[index]! % 62];
  return `${prefix}_${encodeTime(ms)}${random}`;
}

/**
 * The smallest (`'first'`) or largest (`'last'`) id of that kind made in the
 * millisecond `ms`: key bounds for a date range over time-ordered ids.
 */
export function idBoundAt(prefix: IdPrefix, ms: number, end: 'first' | 'last'): string {
  return `${prefix}_${encodeTime(ms)}${(end === 'first' ? ALPHABET[0]! : ALPHABET[61]!).repeat(RANDOM_CHARS)}`;
}

/** True when `value` has the shape of an id of that kind; lets a malformed id be a plain 404 without a read. */
export function isId(prefix: IdPrefix, value: string): boolean {
  return value.length === prefix.length + 1 + ID_BODY_LENGTH && value.startsWith(`${prefix}_`) && /^[0-9A-Za-z]+$/.test(value.slice(prefix.length + 1));
}

/** The millisecond an id was made in (its time part): `timeOfId(newId('con', ms)) === ms`. */
export function timeOfId(id: string): number {
  const time = id.slice(id.indexOf('_') + 1, id.indexOf('_') + 1 + TIME_CHARS);
  let ms = 0;
  for (const char of time) ms = ms * 62 + ALPHABET.indexOf(char);
  return ms;
}
