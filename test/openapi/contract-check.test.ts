/**
 * The suite's contract check (test/support/contract.ts) runs on validators
 * compiled once per version of docs/openapi.json: they must still refuse what
 * the document does not promise, or every test would pass unchecked.
 */
import { describe, expect, it } from 'vitest';
import { assertDocumented, type ObservedResponse } from '../support/contract.ts';

function observed(status: number, body: unknown, contentType = 'application/json'): ObservedResponse {
  const headers: Record<string, string> = { 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '9', 'x-ratelimit-reset': '1' };
  return { method: 'GET', path: '/api/contacts', status, contentType, body: JSON.stringify(body), header: (name) => headers[name.toLowerCase()] };
}

describe('the contract check', () => {
  it('passes a body the document describes', () => {
    expect(() => assertDocumented(observed(200, { success: true, contacts: [], pagination: { total: 0, page: 1, limit: 20, pages: 0 } }))).not.toThrow();
  });

  it('refuses a body that does not match the schema, naming the wrong field (in a referenced component)', () => {
    expect(() => assertDocumented(observed(200, { success: true, contacts: [], pagination: { total: -1, page: 1, limit: 20, pages: 0 } }))).toThrow(
      /does not match its documented schema: body\/pagination\/total must be >= 0/,
    );
  });

  it('refuses a status and a media type the operation does not document', () => {
    expect(() => assertDocumented(observed(418, {}))).toThrow(/does not document/);
    expect(() => assertDocumented(observed(200, {}, 'text/plain'))).toThrow(/as text\/plain, documented as application\/json/);
  });
});
