/** The refusals of signing in and of the team, written once for the domain and the API description. */
import { AuthError, ConflictError } from '#shared/platform/errors.ts';

/** One answer for a wrong code, an expired one, a voided one and an address that has none: a guess learns nothing. */
export const invalidCode = () => new AuthError('INVALID_CODE', 'The code is wrong or has expired; ask for a new one');

export const memberExists = () => new ConflictError('MEMBER_EXISTS', 'This address is already a member of the account', { field: 'email' });

export const lastAdmin = () => new ConflictError('LAST_ADMIN', 'The account must keep at least one admin: make another member admin first');
