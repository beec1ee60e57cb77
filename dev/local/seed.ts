/** The account `npm start` makes in an empty table, so the API can be tried at once. */
import { createAccount } from '#shared/accounts/service.ts';
import { createApiKey, type CreatedKey } from '#shared/accounts/api-keys.ts';
import { localVerifier, verifyDomain } from '#shared/domains/verification.ts';
import type { Plan } from '#shared/accounts/plans.ts';

export interface LocalAccount {
  accountId: string;
  plan: Plan;
  /** Verified, so mail can be sent from it at once. */
  domain: string;
  live: CreatedKey;
  test: CreatedKey;
}

export async function seedLocalAccount(now = new Date()): Promise<LocalAccount> {
  const plan = 'pro';
  const { accountId } = await createAccount({ plan, name: 'Local account' }, now);
  const live = await createApiKey({ accountId, env: 'live', permission: 'full', name: 'local live key' }, now);
  const test = await createApiKey({ accountId, env: 'test', permission: 'full', name: 'local test key' }, now);
  const { domain } = await verifyDomain(accountId, 'example.com', localVerifier, now);
  return { accountId, plan, domain, live, test };
}
