/**
 * Account-level suppression: an address SES reported as bounced or complained
 * that is no contact of the account, so no contact status can hold it.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionFailure, tableName } from './client.ts';
import { accountScoped } from './partition.ts';

export type SuppressionReason = 'bounced' | 'complained';

const suppressionKey = (accountId: string, email: string) => ({ pk: accountScoped(accountId, 'SUPPRESSED'), sk: email });

/** Reasons a new one leaves in place: itself (a replayed event keeps the first date) and what outranks it (a complaint, a bounce). */
const KEPT_OVER: Record<SuppressionReason, readonly SuppressionReason[]> = {
  bounced: ['bounced', 'complained'],
  complained: ['complained'],
};

/** Records the address once; a complaint is never downgraded to a bounce, and the same news again changes nothing. */
export async function putSuppression(accountId: string, email: string, reason: SuppressionReason, now: Date): Promise<void> {
  const kept = Object.fromEntries(KEPT_OVER[reason].map((other, index) => [`:kept${index}`, other]));
  await db.send(new PutCommand({
    TableName: tableName,
    Item: { ...suppressionKey(accountId, email), entity: 'suppression', email, reason, createdAt: now.toISOString() },
    ConditionExpression: `attribute_not_exists(reason) OR NOT (reason IN (${Object.keys(kept).join(', ')}))`,
    ExpressionAttributeValues: kept,
  })).catch((error: unknown) => {
    if (!isConditionFailure(error)) throw error;
  });
}

export async function getSuppression(accountId: string, email: string): Promise<SuppressionReason | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: suppressionKey(accountId, email) }));
  return Item?.reason as SuppressionReason | undefined;
}
