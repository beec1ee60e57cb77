/** The double opt-in token on its own (no I/O): what it carries, and that no other signed token passes for it. */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { readConfirmationToken, signConfirmationToken, type ConfirmationClaims } from '#shared/forms/confirmation-links.ts';
import { readSubscriptionToken, signSubscriptionToken } from '#shared/sending/subscription-links.ts';

const key = randomBytes(32);
const claims: ConfirmationClaims = {
  accountId: 'acc_0WdAbCdEfGhIjKlMnOpQ',
  email: 'ana.silva@example.com',
  audienceId: 'aud_0WdAbCdEfGhIjKlMnOpQ',
  formId: 'frm_0WdAbCdEfGhIjKlMnOpQ',
  issuedAt: new Date('2026-11-21T10:00:00Z'),
};

describe('confirmation tokens', () => {
  it('carry the account, the normalised address, the audience, the form and the issue time', () => {
    const token = signConfirmationToken(key, { ...claims, email: '  Ana.Silva@Example.COM ' });

    expect(readConfirmationToken(key, token)).toEqual(claims);
  });

  it('fit a 254-character address', () => {
    const email = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(57)}.com`;
    expect(email).toHaveLength(254);

    expect(readConfirmationToken(key, signConfirmationToken(key, { ...claims, email }))?.email).toBe(email);
  });

  it('are not subscription tokens, nor the other way round, though one key signs both', () => {
    const confirmation = signConfirmationToken(key, claims);
    const subscription = signSubscriptionToken(key, claims.accountId, claims.email, claims.issuedAt);

    expect(readSubscriptionToken(key, confirmation)).toBeUndefined();
    expect(readConfirmationToken(key, subscription)).toBeUndefined();
  });

  it('refuse another key, and ids of the wrong kind even under a valid mac', () => {
    expect(readConfirmationToken(randomBytes(32), signConfirmationToken(key, claims))).toBeUndefined();
    expect(readConfirmationToken(key, signConfirmationToken(key, { ...claims, audienceId: claims.formId }))).toBeUndefined();
    expect(readConfirmationToken(key, signConfirmationToken(key, { ...claims, formId: 'frm_x' }))).toBeUndefined();
  });
});
