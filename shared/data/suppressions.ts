/**
 * Account-level suppression: an address SES reported as bounced or complained
 * that is no contact of the account, so no contact status can hold it.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionFailure, tableName } from './client.ts';
import { accountScoped } from './partition.ts';

export type SuppressionReason = 'bounced' | 'complained';

const suppressionKey = (accountId: string, email: string) => ({ pk: accountScoped(accountId, 'SUPPRESSED'), sk: email });

/** Records (or re-records) the address; a complaint is never downgraded to a bounce. */
export async function putSuppression(accountId: string, email: string, reason: SuppressionReason, now: Date): Promise<void> {
  await db.send(new PutCommand({
    TableName: tableName,
    Item: { ...suppressionKey(accountId, email), entity: 'suppression', email, reason, createdAt: now.toISOString() },
    ...(reason === 'bounced' ? { ConditionExpression: 'attribute_not_exists(reason) OR reason <> :complained', ExpressionAttributeValues: { ':complained': 'complained' } } : {}),
  })).catch((error: unknown) => {
    if (!isConditionFailure(error)) throw error;
  });
}

export async function getSuppression(accountId: string, email: string): Promise<SuppressionReason | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: suppressionKey(accountId, email) }));
  return Item?.reason as SuppressionReason | undefined;
}
