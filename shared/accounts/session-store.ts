/**
 * Sessions (`ses_`): one item per signed-in browser, `SESSION#<token hash>` /
 * `SESSION`, keyed by the SHA-256 of the cookie's token so that the token
 * itself is never stored and a request finds its session in one write. It
 * names the person (`email`) and the account it acts on with the member
 * there; `expiresAt` (TTL) follows its last use, so DynamoDB removes it some
 * time after it ended, and the use's own condition ends it on time.
 *
 * A person's session is theirs across accounts (PATCH /api/session moves it),
 * so it is keyed by no account: written and read in the replica of the region
 * the request arrived in (docs/data-model.md, "Regions").
 */
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { db, putNew, tableName, updateReturning, type TransactItems } from '#shared/platform/dynamodb/client.ts';
import { strings } from '#shared/platform/dynamodb/attributes.ts';

export interface SessionRecord {
  sessionId: string;
  email: string;
  accountId: string;
  memberId: string;
  createdAt: string;
  lastUsedAt: string;
}

const sessionKey = (tokenHash: string) => ({ pk: `SESSION#${tokenHash}`, sk: 'SESSION' });

function toSession(item: Record<string, unknown>): SessionRecord {
  return strings(item, 'sessionId', 'email', 'accountId', 'memberId', 'createdAt', 'lastUsedAt');
}

/** The transaction item of a new session: part of the sign-in that spends its code. */
export function sessionPut(tokenHash: string, record: SessionRecord, expiresAt: number): TransactItems[number] {
  return putNew({ ...sessionKey(tokenHash), entity: 'session', ...record, expiresAt });
}

/**
 * A use of the session: moves `lastUsedAt` and its TTL on, provided it has
 * neither gone unused since `idleSince` nor begun before `startedSince`.
 * The session as it now is, or undefined when it is unknown or over.
 */
export async function useSession(
  tokenHash: string,
  now: Date,
  bounds: { idleSince: Date; startedSince: Date; expiresAt: number },
): Promise<SessionRecord | undefined> {
  const item = await updateReturning({
    Key: sessionKey(tokenHash),
    UpdateExpression: 'SET lastUsedAt = :now, expiresAt = :expiresAt',
    ConditionExpression: 'lastUsedAt > :idleSince AND createdAt > :startedSince',
    ExpressionAttributeValues: {
      ':now': now.toISOString(),
      ':expiresAt': bounds.expiresAt,
      ':idleSince': bounds.idleSince.toISOString(),
      ':startedSince': bounds.startedSince.toISOString(),
    },
  });
  return item && toSession(item);
}

/** Points the session at another account and its member there; undefined when it ended meanwhile. */
export async function moveSession(tokenHash: string, accountId: string, memberId: string): Promise<SessionRecord | undefined> {
  const item = await updateReturning({
    Key: sessionKey(tokenHash),
    UpdateExpression: 'SET accountId = :account, memberId = :member',
    ConditionExpression: 'attribute_exists(pk)',
    ExpressionAttributeValues: { ':account': accountId, ':member': memberId },
  });
  return item && toSession(item);
}

/** Ends the session on the server: its token is worth nothing from then on. */
export async function deleteSession(tokenHash: string): Promise<void> {
  await db.send(new DeleteCommand({ TableName: tableName, Key: sessionKey(tokenHash) }));
}
