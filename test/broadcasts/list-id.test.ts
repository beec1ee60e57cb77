/**
 * The List-Id header's value (RFC 2919) as broadcasts carry it: whatever the
 * audience's name, a value SES takes (printable ASCII, at most 870
 * characters) and mail software reads (an RFC 5322 phrase, encoded words of
 * at most 75 characters, an identifier of at most 255 octets).
 */
import { describe, expect, it } from 'vitest';
import { formatPhrase } from '#shared/sending/address.ts';
import { listId } from '#shared/broadcasts/list-id.ts';

const AUDIENCE = 'aud_0BqM3xYfZk2T4a5b6c7d';

describe('listId', () => {
  it("is the audience's id under the sender's domain, described by its name as a phrase", () => {
    expect(listId(AUDIENCE, 'news.example.com', 'Weekly news')).toBe(`Weekly news <${AUDIENCE}.news.example.com>`);
    expect(listId(AUDIENCE, 'news.example.com', 'Acme, "Inc." \\ news')).toBe(`"Acme, \\"Inc.\\" \\\\ news" <${AUDIENCE}.news.example.com>`);
    expect(listId(AUDIENCE, 'news.example.com', 'Été')).toBe(`=?UTF-8?B?${Buffer.from('Été').toString('base64')}?= <${AUDIENCE}.news.example.com>`);
  });

  it('stands alone without a name, and turns control characters into spaces', () => {
    expect(listId(AUDIENCE, 'news.example.com', undefined)).toBe(`<${AUDIENCE}.news.example.com>`);
    expect(listId(AUDIENCE, 'news.example.com', ' \r\n\t ')).toBe(`<${AUDIENCE}.news.example.com>`);
    expect(listId(AUDIENCE, 'news.example.com', 'Line\r\nBcc: x@example.org')).toBe(`"Line Bcc: x@example.org" <${AUDIENCE}.news.example.com>`);
  });

  it('fits SES and the RFCs for the longest names, and leaves out an identifier past 255 octets', () => {
    const domain = `${'d'.repeat(63)}.${'e'.repeat(63)}.example.com`;
    for (const name of ['x'.repeat(256), '"'.repeat(256), '😀'.repeat(256), 'é'.repeat(256)]) {
      const value = listId(AUDIENCE, domain, name)!;
      expect(value).toMatch(/^[ -~]+$/);
      expect(value.length).toBeLessThanOrEqual(870);
      for (const word of value.split(' ').filter((part) => part.startsWith('=?'))) expect(word.length).toBeLessThanOrEqual(75);
    }
    expect(listId(AUDIENCE, `${'d'.repeat(230)}.example.com`, 'News')).toBeUndefined();
  });
});

describe('formatPhrase', () => {
  it('splits a long non-ASCII name into encoded words of whole characters', () => {
    const name = 'ニュースレター'.repeat(10);
    const words = formatPhrase(name).split(' ');

    expect(words.length).toBeGreaterThan(1);
    for (const word of words) expect(word).toMatch(/^=\?UTF-8\?B\?[A-Za-z0-9+/=]+\?=$/);
    const decoded = words.map((word) => Buffer.from(word.slice('=?UTF-8?B?'.length, -2), 'base64').toString('utf8'));
    expect(decoded.join('')).toBe(name);
    expect(decoded.every((part) => !part.includes('\uFFFD'))).toBe(true);
  });
});
