import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName, updateIf, updateReturning } from '#shared/platform/dynamodb/client.ts';
import { DEFAULT_HOME_REGION } from '#shared/platform/dynamodb/regions.ts';
import { accountKey, AUDIENCE_COUNT_ATTRIBUTE, HOME_REGION_ATTRIBUTE, TEMPLATE_COUNT_ATTRIBUTE } from '#shared/platform/dynamodb/account-item.ts';
import type { Plan } from './plans.ts';

export interface AccountRecord {
  accountId: string;
  name: string;
  plan: Plan;
  /** Monthly email quota when set by the operator; otherwise the plan's. */
  quotaOverride?: number;
  /**
   * Counts the operator's changes of plan or quota (`admin account update`);
   * each key item records the version of the copy it holds. Absent: never changed.
   */
  planVersion?: number;
  /** Messages per second the account's broadcasts may send, set by the operator (`admin account set-send-rate`); unset, no limit of its own. */
  sendRate?: number;
  /** Home region: every write for the account, and every read guarding one, goes to its replica (docs/regions.md). */
  region: string;
  createdAt: string;
}

export function toAccount(item: Record<string, unknown>): AccountRecord {
  return {
    accountId: item.accountId as string,
    name: item.name as string,
    plan: item.plan as Plan,
    ...(typeof item.quotaOverride === 'number' ? { quotaOverride: item.quotaOverride } : {}),
    ...(typeof item.planVersion === 'number' ? { planVersion: item.planVersion } : {}),
    ...(typeof item.sendRate === 'number' ? { sendRate: item.sendRate } : {}),
    // Accounts made before home regions live in the deployment's first region.
    region: typeof item[HOME_REGION_ATTRIBUTE] === 'string' ? (item[HOME_REGION_ATTRIBUTE] as string) : DEFAULT_HOME_REGION,
    createdAt: item.createdAt as string,
  };
}

export async function putAccount(account: AccountRecord): Promise<void> {
  await db.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...accountKey(account.accountId), entity: 'account', ...account, [AUDIENCE_COUNT_ATTRIBUTE]: 0 },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

/** `consistent`: read in the account's home replica, for a check that guards a write (an operator's, a key's creation). */
export async function getAccount(
  accountId: string,
  options: { consistent?: boolean } = {},
): Promise<(AccountRecord & { audienceCount: number; templateCount: number }) | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: accountKey(accountId), ...(options.consistent ? { ConsistentRead: true } : {}) }));
  return Item
    ? { ...toAccount(Item), audienceCount: Number(Item[AUDIENCE_COUNT_ATTRIBUTE] ?? 0), templateCount: Number(Item[TEMPLATE_COUNT_ATTRIBUTE] ?? 0) }
    : undefined;
}

/** Makes `region` the account's home, written in the replica the caller is routed to; false when the account is not there. */
export function setAccountRegion(accountId: string, region: string): Promise<boolean> {
  return updateIf({
    Key: accountKey(accountId),
    UpdateExpression: 'SET #region = :region',
    ConditionExpression: 'attribute_exists(pk)',
    ExpressionAttributeNames: { '#region': HOME_REGION_ATTRIBUTE },
    ExpressionAttributeValues: { ':region': region },
  });
}

/** A change of plan or quota: `quotaOverride: null` takes the plan's quota again. */
export interface PlanChange {
  plan?: Plan;
  quotaOverride?: number | null;
}

/** Applies the change and moves `planVersion` on; the account as written, or undefined when there is none. */
export async function updateAccountPlan(accountId: string, change: PlanChange): Promise<AccountRecord | undefined> {
  const sets = ['planVersion = if_not_exists(planVersion, :zero) + :one'];
  const values: Record<string, unknown> = { ':zero': 0, ':one': 1 };
  if (change.plan !== undefined) {
    sets.push('#plan = :plan');
    values[':plan'] = change.plan;
  }
  if (typeof change.quotaOverride === 'number') {
    sets.push('quotaOverride = :quota');
    values[':quota'] = change.quotaOverride;
  }
  const item = await updateReturning({
    Key: accountKey(accountId),
    UpdateExpression: `SET ${sets.join(', ')}${change.quotaOverride === null ? ' REMOVE quotaOverride' : ''}`,
    ConditionExpression: 'attribute_exists(pk)',
    ...(change.plan === undefined ? {} : { ExpressionAttributeNames: { '#plan': 'plan' } }),
    ExpressionAttributeValues: values,
  });
  return item && toAccount(item);
}

/** Sets the account's send rate (messages per second), or removes it with undefined; false when the account is not there. */
export function setAccountSendRate(accountId: string, sendRate: number | undefined): Promise<boolean> {
  return updateIf({
    Key: accountKey(accountId),
    ...(sendRate === undefined
      ? { UpdateExpression: 'REMOVE sendRate' }
      : { UpdateExpression: 'SET sendRate = :rate', ExpressionAttributeValues: { ':rate': sendRate } }),
    ConditionExpression: 'attribute_exists(pk)',
  });
}
