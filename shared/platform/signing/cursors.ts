/**
 * Opaque cursors for lists that grow without bound (events, deliveries): the
 * position DynamoDB hands back (a LastEvaluatedKey), signed with the
 * link-signing key together with the account and the list it came from. A
 * cursor of another account, of another list or filter, or edited by hand is
 * refused, so a client never steers a query by what it sends back.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ValidationError } from '#shared/platform/errors.ts';
import { signingSecret } from './secret.ts';

export type Position = Record<string, string>;

/** Keeps cursor signatures apart from link signatures made with the same key. */
const PURPOSE = 'postlane-cursor-v1';

async function mac(accountId: string, scope: string, payload: string): Promise<Buffer> {
  return createHmac('sha256', await signingSecret())
    .update([PURPOSE, accountId, scope, payload].join('\u0000'))
    .digest();
}

/** `scope` names the list and its filters: `events?type=email.bounced`. */
export async function encodeCursor(accountId: string, scope: string, position: Position): Promise<string> {
  const payload = Buffer.from(JSON.stringify(position), 'utf8').toString('base64url');
  return `${payload}.${(await mac(accountId, scope, payload)).toString('base64url')}`;
}

const invalidCursor = () => new ValidationError('VALIDATION_ERROR', 'cursor is not a cursor this list returned', 'cursor');

/** The position a cursor holds; VALIDATION_ERROR on `cursor` unless this account's list of this scope signed it. */
export async function decodeCursor(accountId: string, scope: string, cursor: string): Promise<Position> {
  const [payload, signature, ...rest] = cursor.split('.');
  if (!payload || !signature || rest.length > 0) throw invalidCursor();
  const expected = await mac(accountId, scope, payload);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalidCursor();
  const position: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  if (typeof position !== 'object' || position === null || !Object.values(position).every((value) => typeof value === 'string')) throw invalidCursor();
  return position as Position;
}
