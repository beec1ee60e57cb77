import { createAccount } from '#shared/accounts/service.ts';
import { createApiKey } from '#shared/accounts/api-keys.ts';
import type { KeyEnvironment, KeyPermission } from '#shared/accounts/api-key-store.ts';
import type { Plan } from '#shared/accounts/plans.ts';

export interface TestAccount {
  accountId: string;
  keyId: string;
  /** The whole secret, for `x-api-key`. */
  key: string;
}

/**
 * A fresh account with one key, so each test owns its data. Plan `business`
 * by default: its 200 requests per second keep tests clear of rate limits.
 *
 * `const { key } = await createTestAccount({ permission: 'sending' })`
 */
export async function createTestAccount(options: { plan?: Plan; env?: KeyEnvironment; permission?: KeyPermission; quota?: number } = {}): Promise<TestAccount> {
  const { accountId } = await createAccount({ plan: options.plan ?? 'business', ...(options.quota === undefined ? {} : { quota: options.quota }) });
  const { id, key } = await createApiKey({ accountId, env: options.env ?? 'live', permission: options.permission ?? 'full' });
  return { accountId, keyId: id, key };
}
