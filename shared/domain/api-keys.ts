import { createHash, timingSafeEqual } from 'node:crypto';
import { ID_BODY_LENGTH, newId, randomBase62 } from '#shared/ids.ts';
import { AuthError } from '#shared/errors.ts';
import {
  getApiKeyWithAccount,
  listApiKeys,
  putApiKey,
  setApiKeyFlag,
  touchApiKey,
  type ApiKeyRecord,
  type KeyEnvironment,
  type KeyPermission,
} from '#shared/data/api-keys.ts';
import { getAccount } from '#shared/data/accounts.ts';
import { localRegion, rememberHome, routesToHome, withHome } from '#shared/data/regions.ts';
import type { Plan } from '#shared/model/plans.ts';

const SECRET_LENGTH = 32; // ~190 bits: a fast hash is enough, nothing to brute-force
const KEY_PATTERN = new RegExp(`^svc_(live|test)_([0-9A-Za-z]{${ID_BODY_LENGTH}})([0-9A-Za-z]{${ID_BODY_LENGTH}})[0-9A-Za-z]{${SECRET_LENGTH}}$`);

/** The caller of an authenticated request. */
export interface Principal {
  accountId: string;
  keyId: string;
  env: KeyEnvironment;
  permission: KeyPermission;
  plan: Plan;
}

function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/**
 * A key names its account and key record (`svc_live_<account><key><secret>`), so
 * authentication is one strongly consistent read keyed under the account.
 */
function parseKey(key: string): { env: KeyEnvironment; accountId: string; keyId: string } | undefined {
  const match = KEY_PATTERN.exec(key);
  if (!match) return undefined;
  return { env: match[1] as KeyEnvironment, accountId: `acc_${match[2]}`, keyId: `key_${match[3]}` };
}

export interface CreatedKey {
  id: string;
  key: string;
}

export async function createApiKey(
  input: {
    accountId: string;
    env: KeyEnvironment;
    permission: KeyPermission;
    name?: string;
  },
  now = new Date(),
): Promise<CreatedKey> {
  const account = await getAccount(input.accountId, { consistent: true });
  if (!account) throw new AuthError('UNAUTHORIZED', `No account ${input.accountId}`);
  const keyId = newId('key', now.getTime());
  const key = `svc_${input.env}_${input.accountId.slice(4)}${keyId.slice(4)}${randomBase62(SECRET_LENGTH)}`;
  await putApiKey({
    keyId,
    accountId: input.accountId,
    name: input.name ?? `${input.env} key`,
    env: input.env,
    permission: input.permission,
    secretHash: hashKey(key),
    disabled: false,
    revoked: false,
    createdAt: now.toISOString(),
  });
  return { id: keyId, key };
}

const unauthorized = () => new AuthError('UNAUTHORIZED', 'Missing or invalid API key');

/** Resolves an `x-api-key` value to its principal: 401 for missing, unknown or revoked keys, 403 for disabled ones. */
export async function authenticate(key: string | undefined, now = new Date()): Promise<Principal> {
  const parsed = key ? parseKey(key) : undefined;
  if (!key || !parsed) throw unauthorized();
  const found = await keyAtHome(parsed.accountId, parsed.keyId);
  if (!found || found.key.revoked || found.key.env !== parsed.env) throw unauthorized();
  const expected = Buffer.from(found.key.secretHash, 'hex');
  const given = Buffer.from(hashKey(key), 'hex');
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw unauthorized();
  if (found.key.disabled) throw new AuthError('FORBIDDEN', 'This API key is disabled');
  if (!found.key.lastUsedAt || now.getTime() - Date.parse(found.key.lastUsedAt) > 60_000) {
    await touchApiKey(parsed.accountId, parsed.keyId, now);
  }
  return {
    accountId: parsed.accountId,
    keyId: parsed.keyId,
    env: found.key.env,
    permission: found.key.permission,
    plan: found.account.plan,
  };
}

/**
 * The key as its account's home replica has it, where revoking and disabling
 * are written, so they hold at once in every region. The local replica names
 * the home; when that is another region the key is read again there: one
 * more round trip, only for requests that arrived away from home. A key the
 * local replica does not have yet (or, with independent regions, at all) is unknown.
 */
async function keyAtHome(accountId: string, keyId: string): Promise<Awaited<ReturnType<typeof getApiKeyWithAccount>>> {
  const local = localRegion();
  const found = await withHome(accountId, local, () => getApiKeyWithAccount(accountId, keyId));
  if (!found) return undefined;
  const home = routesToHome() ? found.account.region : local;
  rememberHome(accountId, home);
  return home === local ? found : withHome(accountId, home, () => getApiKeyWithAccount(accountId, keyId));
}

export type KeySummary = Pick<ApiKeyRecord, 'name' | 'env' | 'permission' | 'disabled' | 'revoked' | 'createdAt'> & {
  id: string;
  lastUsedAt: string | null;
};

export async function listKeys(accountId: string): Promise<KeySummary[]> {
  const keys = await listApiKeys(accountId);
  return keys.map((key) => ({
    id: key.keyId,
    name: key.name,
    env: key.env,
    permission: key.permission,
    disabled: key.disabled,
    revoked: key.revoked,
    createdAt: key.createdAt,
    lastUsedAt: key.lastUsedAt ?? null,
  }));
}

/** Disables (403 from then on) or revokes (401 from then on) a key; false when the account has no such key. */
export function restrictKey(accountId: string, keyId: string, action: 'disable' | 'revoke'): Promise<boolean> {
  return setApiKeyFlag(accountId, keyId, action === 'disable' ? 'disabled' : 'revoked');
}
