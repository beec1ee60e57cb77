/**
 * Account-level suppression: an address that is no contact of the account,
 * so no contact status can hold what happened to it: SES reported it bounced
 * or complained, or it unsubscribed through a signed link.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { readTogether, type KeyedRead } from '#shared/platform/dynamodb/batches.ts';
import { db, isConditionFailure, tableName, deleteIf, putNew, type TransactItems } from '#shared/platform/dynamodb/client.ts';
import { accountScoped } from '#shared/platform/dynamodb/partition.ts';

export type SuppressionReason = 'unsubscribed' | 'bounced' | 'complained';

/**
 * Weakest first. A reason never replaces a stronger one: an unsubscribe must
 * not turn a bounce into something OTP and transactional sends ignore, and a
 * bounce never hides a complaint.
 */
const STRENGTH: readonly SuppressionReason[] = ['unsubscribed', 'bounced', 'complained'];

export const suppressionKey = (accountId: string, email: string) => ({ pk: accountScoped(accountId, 'SUPPRESSED'), sk: email });

/**
 * Records the address unless the same or a stronger reason is already there:
 * a replayed event keeps the first date, and a complaint is never downgraded.
 */
export async function putSuppression(accountId: string, email: string, reason: SuppressionReason, now: Date): Promise<void> {
  const kept = Object.fromEntries(STRENGTH.slice(STRENGTH.indexOf(reason)).map((other, index) => [`:kept${index}`, other]));
  await db
    .send(
      new PutCommand({
        TableName: tableName,
        Item: { ...suppressionKey(accountId, email), entity: 'suppression', email, reason, createdAt: now.toISOString() },
        ConditionExpression: `attribute_not_exists(reason) OR NOT (reason IN (${Object.keys(kept).join(', ')}))`,
        ExpressionAttributeValues: kept,
      }),
    )
    .catch((error: unknown) => {
      if (!isConditionFailure(error)) throw error;
    });
}

/**
 * The transaction item that records the address's own unsubscribe when it
 * has no suppression yet (any reason is at least as strong), for the
 * transaction that records its event: a repeat cancels both.
 */
export function newUnsubscribePut(accountId: string, email: string, now: Date): TransactItems[number] {
  return putNew({ ...suppressionKey(accountId, email), entity: 'suppression', email, reason: 'unsubscribed', createdAt: now.toISOString() });
}

export async function getSuppression(accountId: string, email: string): Promise<SuppressionReason | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: suppressionKey(accountId, email) }));
  return Item?.reason as SuppressionReason | undefined;
}

/** The recorded reason of each address that has one, as a read `readTogether` can join to others. */
export function suppressionsRead(accountId: string, emails: readonly string[]): KeyedRead<Map<string, SuppressionReason>> {
  const keys = emails.map((email) => suppressionKey(accountId, email));
  return {
    keys,
    result: (found) =>
      new Map(keys.flatMap((key) => [found(key)].filter((item) => item !== undefined)).map((item) => [item.email as string, item.reason as SuppressionReason])),
  };
}

/** The recorded reason of each address that has one: one BatchGetItem per 100 addresses, whatever their number. */
export async function getSuppressions(accountId: string, emails: readonly string[]): Promise<Map<string, SuppressionReason>> {
  const [listed] = await readTogether(suppressionsRead(accountId, emails));
  return listed;
}

/**
 * Lifts an unsubscribe (the address rejoins through its preferences page);
 * false when the address is not suppressed for that reason. A bounce or a
 * complaint is the service's record, never the recipient's to clear.
 */
export async function removeUnsubscribe(accountId: string, email: string): Promise<boolean> {
  return deleteIf({
    Key: suppressionKey(accountId, email),
    ConditionExpression: 'reason = :unsubscribed',
    ExpressionAttributeValues: { ':unsubscribed': 'unsubscribed' },
  });
}
