/** The account `npm start` makes in an empty table, so the API can be tried at once. */
import { createAccount } from '#shared/accounts/service.ts';
import { createApiKey, type CreatedKey } from '#shared/accounts/api-keys.ts';
import { localVerifier, verifyDomain } from '#shared/domains/verification.ts';
import type { Plan } from '#shared/accounts/plans.ts';
import { addMember } from '#shared/accounts/members.ts';

/** The person `npm start` makes an admin of the local account, to sign in to the dashboard as. */
export const LOCAL_ADMIN_EMAIL = 'admin@example.com';

export interface LocalAccount {
  accountId: string;
  plan: Plan;
  /** Verified, so mail can be sent from it at once. */
  domain: string;
  live: CreatedKey;
  test: CreatedKey;
  /** An admin of the account: signs in to the dashboard with a code mailed to it (the SES emulator shows it). */
  admin: string;
}

export async function seedLocalAccount(now = new Date()): Promise<LocalAccount> {
  const plan = 'pro';
  const { accountId } = await createAccount({ plan, name: 'Local account' }, now);
  const live = await createApiKey({ accountId, env: 'live', permission: 'full', name: 'local live key' }, now);
  const test = await createApiKey({ accountId, env: 'test', permission: 'full', name: 'local test key' }, now);
  const { domain } = await verifyDomain(accountId, 'example.com', localVerifier, now);
  await addMember(accountId, { email: LOCAL_ADMIN_EMAIL, role: 'admin' }, { type: 'operator', id: 'npm-start' }, now);
  return { accountId, plan, domain, live, test, admin: LOCAL_ADMIN_EMAIL };
}
