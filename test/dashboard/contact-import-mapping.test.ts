/**
 * The CSV import's mapping, without a browser: headers guessed as people
 * write them, and a row turned into the contact sent, or refused in the API's
 * own words before it is sent.
 */
import { describe, expect, it } from 'vitest';
import { guessMapping, mappingProblem, rowToContact, splitTags, type ColumnMapping } from '../../dashboard/src/pages/audiences/import/mapping.ts';

describe('guessing columns from headers', () => {
  it('maps the usual spellings, keeps other columns as text custom fields and ignores a blank header', () => {
    const mapping = guessMapping(['E-mail', 'first_name', 'LastName', 'Phone Number', 'Tags', 'plan', '']);
    expect(mapping.map((column) => column.target)).toEqual(['email', 'firstName', 'lastName', 'phone', 'tags', 'custom', 'ignore']);
    expect(mapping.every((column) => column.type === 'text')).toBe(true);
    expect(guessMapping(['Email Address', 'firstname', 'surname']).map((column) => column.target)).toEqual(['email', 'firstName', 'lastName']);
  });

  it('gives a field to the first column that claims it only', () => {
    expect(guessMapping(['email', 'Email']).map((column) => column.target)).toEqual(['email', 'custom']);
  });

  it('says what is missing or doubled', () => {
    expect(mappingProblem(guessMapping(['name', 'plan']))).toBe('Choose the column that holds the email address.');
    expect(
      mappingProblem([
        { header: 'a', target: 'email', type: 'text' },
        { header: 'b', target: 'email', type: 'text' },
      ]),
    ).toBe('Only one column can be Email.');
    expect(mappingProblem(guessMapping(['email', 'tags', 'labels']))).toBeUndefined();
  });
});

describe('a row as the contact sent', () => {
  const mapping: ColumnMapping[] = [
    ...guessMapping(['email', 'first name', 'last name', 'phone', 'tags']),
    { header: 'plan', target: 'custom', type: 'text' },
    { header: 'seats', target: 'custom', type: 'number' },
    { header: 'beta', target: 'custom', type: 'boolean' },
    { header: 'notes', target: 'ignore', type: 'text' },
  ];

  it('sends the mapped fields, tags split on commas and semicolons, typed custom fields, and nothing for an empty cell', () => {
    const row = {
      email: ' Ada@Example.org ',
      'first name': 'Ada',
      'last name': '',
      phone: '+44 20 7946 0000',
      tags: 'vip; beta,early,',
      plan: 'pro',
      seats: '3',
      beta: 'Yes',
      notes: 'x',
    };
    expect(rowToContact(row, mapping)).toEqual({
      ok: true,
      contact: {
        email: 'Ada@Example.org',
        firstName: 'Ada',
        phone: '+44 20 7946 0000',
        tags: ['vip', 'beta', 'early'],
        customFields: { plan: 'pro', seats: 3, beta: true },
      },
    });
    expect(splitTags(' ; , ')).toEqual([]);
  });

  it('keeps a formula-looking cell as its text', () => {
    const result = rowToContact({ email: 'a@example.org', plan: '=HYPERLINK("http://evil")' }, mapping);
    expect(result).toEqual({ ok: true, contact: { email: 'a@example.org', customFields: { plan: '=HYPERLINK("http://evil")' } } });
  });

  it('refuses, in the API’s words, a row without an address, a malformed one, a bad phone, a number or boolean that is not one', () => {
    expect(rowToContact({ email: '', 'first name': 'Ada' }, mapping)).toEqual({ ok: false, email: '', reason: 'email is required' });
    expect(rowToContact({ email: 'not-an-address' }, mapping)).toEqual({ ok: false, email: 'not-an-address', reason: 'email must be a valid email address' });
    expect(rowToContact({ email: 'a@example.org', phone: 'call me' }, mapping)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^phone: must be a phone number/),
    });
    expect(rowToContact({ email: 'a@example.org', seats: 'many' }, mapping)).toEqual({
      ok: false,
      email: 'a@example.org',
      reason: 'seats must be a number, not "many"',
    });
    expect(rowToContact({ email: 'a@example.org', beta: 'maybe' }, mapping)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('beta must be true or false'),
    });
  });
});
