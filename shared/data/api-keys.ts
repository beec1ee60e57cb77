import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetAll } from './batches.ts';
import { db, queryAll, tableName, updateIf } from './client.ts';
import { accountKey, toAccount, type AccountRecord } from './accounts.ts';
import { optionalStrings, strings } from './attributes.ts';

export type KeyEnvironment = 'live' | 'test';
export type KeyPermission = 'full' | 'sending';

export interface ApiKeyRecord {
  keyId: string;
  accountId: string;
  name: string;
  env: KeyEnvironment;
  permission: KeyPermission;
  /** SHA-256 of the whole key, hex; the key itself is never stored. */
  secretHash: string;
  disabled: boolean;
  revoked: boolean;
  createdAt: string;
  lastUsedAt?: string;
}

const KEY_PREFIX = 'KEY#';
const apiKeyKey = (accountId: string, keyId: string) => ({ pk: accountId, sk: `${KEY_PREFIX}${keyId}` });

function toApiKey(item: Record<string, unknown>): ApiKeyRecord {
  return {
    ...strings(item, 'keyId', 'accountId', 'name', 'secretHash', 'createdAt'),
    env: item.env as KeyEnvironment,
    permission: item.permission as KeyPermission,
    disabled: item.disabled === true,
    revoked: item.revoked === true,
    ...optionalStrings(item, 'lastUsedAt'),
  };
}

export async function putApiKey(key: ApiKeyRecord): Promise<void> {
  await db.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...apiKeyKey(key.accountId, key.keyId), entity: 'apiKey', ...key },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

/**
 * The key and its account in one strongly consistent round trip: a key revoked
 * or disabled a moment ago is refused on the very next request.
 */
export async function getApiKeyWithAccount(accountId: string, keyId: string): Promise<{ key: ApiKeyRecord; account: AccountRecord } | undefined> {
  const wanted = [apiKeyKey(accountId, keyId), accountKey(accountId)];
  const items = await batchGetAll(wanted);
  const keyItem = items.find((item) => item.sk === wanted[0]!.sk);
  const accountItem = items.find((item) => item.sk === wanted[1]!.sk);
  return keyItem && accountItem ? { key: toApiKey(keyItem), account: toAccount(accountItem) } : undefined;
}

export async function listApiKeys(accountId: string): Promise<ApiKeyRecord[]> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': accountId, ':prefix': KEY_PREFIX },
  });
  return items.map(toApiKey);
}

/** Sets `disabled` or `revoked`; false when the account has no such key. */
export function setApiKeyFlag(accountId: string, keyId: string, flag: 'disabled' | 'revoked'): Promise<boolean> {
  return updateIf({
    Key: apiKeyKey(accountId, keyId),
    UpdateExpression: 'SET #flag = :true',
    ConditionExpression: 'attribute_exists(pk)',
    ExpressionAttributeNames: { '#flag': flag },
    ExpressionAttributeValues: { ':true': true },
  });
}

/** Records use at most once a minute per key, so a busy key costs no write per request. */
export async function touchApiKey(accountId: string, keyId: string, now: Date): Promise<void> {
  const staleBefore = new Date(now.getTime() - 60_000).toISOString();
  await updateIf({
    Key: apiKeyKey(accountId, keyId),
    UpdateExpression: 'SET lastUsedAt = :now',
    ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(lastUsedAt) OR lastUsedAt < :staleBefore)',
    ExpressionAttributeValues: { ':now': now.toISOString(), ':staleBefore': staleBefore },
  });
}
