/**
 * Where the SES suppression-list reconciliation stopped: one item for the
 * deployment, since SES's list is the AWS account's, not a Postlane account's.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '#shared/platform/dynamodb/client.ts';

const cursorKey = { pk: 'SYSTEM#SES_SUPPRESSION_RECONCILIATION', sk: 'CURSOR' };

/** The end of the window the last complete run read; undefined before the first run. */
export async function getReconciledUntil(): Promise<Date | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: cursorKey, ConsistentRead: true }));
  return typeof Item?.until === 'string' ? new Date(Item.until) : undefined;
}

export async function putReconciledUntil(until: Date): Promise<void> {
  await db.send(new PutCommand({ TableName: tableName, Item: { ...cursorKey, entity: 'reconciliationCursor', until: until.toISOString() } }));
}
