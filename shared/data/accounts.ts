import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.ts';
import type { Plan } from '#shared/model/plans.ts';

export interface AccountRecord {
  accountId: string;
  name: string;
  plan: Plan;
  /** Monthly email quota when set by the operator; otherwise the plan's. */
  quotaOverride?: number;
  createdAt: string;
}

export const accountKey = (accountId: string) => ({ pk: accountId, sk: 'ACCOUNT' });

/** Counter of audiences that are not deleted; kept on the account item so a list's total is one read. */
export const AUDIENCE_COUNT_ATTRIBUTE = 'audienceCount';
/** Counter of templates, for the same reason. */
export const TEMPLATE_COUNT_ATTRIBUTE = 'templateCount';

export function toAccount(item: Record<string, unknown>): AccountRecord {
  return {
    accountId: item.accountId as string,
    name: item.name as string,
    plan: item.plan as Plan,
    ...(typeof item.quotaOverride === 'number' ? { quotaOverride: item.quotaOverride } : {}),
    createdAt: item.createdAt as string,
  };
}

export async function putAccount(account: AccountRecord): Promise<void> {
  await db.send(new PutCommand({
    TableName: tableName,
    Item: { ...accountKey(account.accountId), entity: 'account', ...account, [AUDIENCE_COUNT_ATTRIBUTE]: 0 },
    ConditionExpression: 'attribute_not_exists(pk)',
  }));
}

export async function getAccount(accountId: string): Promise<(AccountRecord & { audienceCount: number; templateCount: number }) | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: accountKey(accountId) }));
  return Item
    ? { ...toAccount(Item), audienceCount: Number(Item[AUDIENCE_COUNT_ATTRIBUTE] ?? 0), templateCount: Number(Item[TEMPLATE_COUNT_ATTRIBUTE] ?? 0) }
    : undefined;
}
