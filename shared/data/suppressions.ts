/**
 * Account-level suppression: an address that is no contact of the account,
 * so no contact status can hold what happened to it: SES reported it bounced
 * or complained, or it unsubscribed through a signed link.
 */
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetAll, db, isConditionFailure, tableName } from './client.ts';
import { accountScoped } from './partition.ts';

export type SuppressionReason = 'unsubscribed' | 'bounced' | 'complained';

/**
 * Weakest first. A reason never replaces a stronger one: an unsubscribe must
 * not turn a bounce into something OTP and transactional sends ignore, and a
 * bounce never hides a complaint.
 */
const STRENGTH: readonly SuppressionReason[] = ['unsubscribed', 'bounced', 'complained'];

const suppressionKey = (accountId: string, email: string) => ({ pk: accountScoped(accountId, 'SUPPRESSED'), sk: email });

/** Records (or re-records) the address, unless a stronger reason is already recorded. */
export async function putSuppression(accountId: string, email: string, reason: SuppressionReason, now: Date): Promise<void> {
  const stronger = STRENGTH.slice(STRENGTH.indexOf(reason) + 1);
  const values = Object.fromEntries(stronger.map((name, index) => [`:stronger${index}`, name]));
  await db.send(new PutCommand({
    TableName: tableName,
    Item: { ...suppressionKey(accountId, email), entity: 'suppression', email, reason, createdAt: now.toISOString() },
    ...(stronger.length > 0 ? { ConditionExpression: `attribute_not_exists(reason) OR NOT reason IN (${Object.keys(values).join(', ')})`, ExpressionAttributeValues: values } : {}),
  })).catch((error: unknown) => {
    if (!isConditionFailure(error)) throw error;
  });
}

export async function getSuppression(accountId: string, email: string): Promise<SuppressionReason | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: suppressionKey(accountId, email) }));
  return Item?.reason as SuppressionReason | undefined;
}

/** The recorded reason of each address that has one: one BatchGetItem per 100 addresses, whatever their number. */
export async function getSuppressions(accountId: string, emails: readonly string[]): Promise<Map<string, SuppressionReason>> {
  if (emails.length === 0) return new Map();
  const items = await batchGetAll(emails.map((email) => suppressionKey(accountId, email)));
  return new Map(items.map((item) => [item.email as string, item.reason as SuppressionReason]));
}

/**
 * Lifts an unsubscribe (the address rejoins through its preferences page);
 * false when the address is not suppressed for that reason. A bounce or a
 * complaint is the service's record, never the recipient's to clear.
 */
export async function removeUnsubscribe(accountId: string, email: string): Promise<boolean> {
  try {
    await db.send(new DeleteCommand({
      TableName: tableName,
      Key: suppressionKey(accountId, email),
      ConditionExpression: 'reason = :unsubscribed',
      ExpressionAttributeValues: { ':unsubscribed': 'unsubscribed' },
    }));
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}
