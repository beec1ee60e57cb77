import { createHash, timingSafeEqual } from 'node:crypto';
import { ID_BODY_LENGTH, newId, randomBase62 } from '#shared/platform/ids.ts';
import { AuthError } from '#shared/platform/errors.ts';
import {
  listApiKeys,
  putApiKey,
  setApiKeyFlag,
  setApiKeyPlan,
  useApiKey,
  type ApiKeyRecord,
  type KeyGuard,
  type WindowLimits,
  type KeyEnvironment,
  type KeyPermission,
} from './api-key-store.ts';
import { getAccount } from './store.ts';
import type { TransactItems } from '#shared/platform/dynamodb/client.ts';
import { monthlyQuotaOf } from './service.ts';
import { PLAN_LIMITS, type Plan } from './plans.ts';
import type { RateWindow } from '#shared/platform/http/rate-headers.ts';
import { windowOf } from './rate-limit.ts';

const SECRET_LENGTH = 32; // ~190 bits: a fast hash is enough, nothing to brute-force
const KEY_PATTERN = new RegExp(`^svc_(live|test)_([0-9A-Za-z]{${ID_BODY_LENGTH}})([0-9A-Za-z]{${ID_BODY_LENGTH}})[0-9A-Za-z]{${SECRET_LENGTH}}$`);

/** The caller of an authenticated request. */
export interface Principal {
  accountId: string;
  keyId: string;
  env: KeyEnvironment;
  permission: KeyPermission;
  plan: Plan;
  /** The account's monthly email quota, from the key's copy of plan and override: the send path reads no account. */
  monthlyQuota?: number;
  /** A sending key bound to one domain sends from it alone (shared/sending/sender.ts). */
  domain?: string;
}

function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/**
 * A key names its account and key record (`svc_live_<account><key><secret>`), so
 * authentication is one write keyed under the account.
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

/** Reads of the account before a new key gives up: each retry follows a plan change made meanwhile, which is rare. */
const CREATE_ATTEMPTS = 5;

/** The secret's last characters a list shows (`hint`): 4 of the 32 random ones, which leaves the rest far beyond guessing. */
const HINT_LENGTH = 4;

/**
 * Makes a key and stores only its hash, with the `alongside` items the
 * stored record calls for (its audit event) in the same transaction.
 */
export async function createApiKey(
  input: {
    accountId: string;
    env: KeyEnvironment;
    permission: KeyPermission;
    name?: string;
    domain?: string;
  },
  now = new Date(),
  alongside: (record: ApiKeyRecord) => TransactItems = () => [],
): Promise<CreatedKey> {
  const keyId = newId('key', now.getTime());
  const key = `svc_${input.env}_${input.accountId.slice(4)}${keyId.slice(4)}${randomBase62(SECRET_LENGTH)}`;
  for (let attempt = 1; ; attempt++) {
    const account = await getAccount(input.accountId, { consistent: true });
    if (!account) throw new AuthError('UNAUTHORIZED', `No account ${input.accountId}`);
    const record: ApiKeyRecord = {
      keyId,
      accountId: input.accountId,
      name: input.name ?? `${input.env} key`,
      env: input.env,
      permission: input.permission,
      ...(input.domain === undefined ? {} : { domain: input.domain }),
      secretHash: hashKey(key),
      hint: key.slice(-HINT_LENGTH),
      disabled: false,
      revoked: false,
      createdAt: now.toISOString(),
      plan: account.plan,
      ...(account.quotaOverride === undefined ? {} : { quotaOverride: account.quotaOverride }),
      ...(account.planVersion === undefined ? {} : { planVersion: account.planVersion }),
    };
    if (await putApiKey(record, alongside(record))) return { id: keyId, key };
    if (attempt >= CREATE_ATTEMPTS) throw new Error(`The plan of account ${input.accountId} kept changing while the key was made; try again`);
  }
}

const unauthorized = () => new AuthError('UNAUTHORIZED', 'Missing or invalid API key');

/** Every plan's limits, for the key item's condition to pick by the plan it records. */
const LIMITS_BY_PLAN = Object.fromEntries(
  Object.entries(PLAN_LIMITS).map(([plan, limits]) => [plan, { perSecond: limits.requestsPerSecond, perDay: limits.requestsPerDay }]),
) as Record<Plan, WindowLimits>;

/**
 * Resolves an `x-api-key` value to its principal and counts the request
 * against the key's plan limits, in one conditional write of the key item
 * (shared/accounts/api-key-store.ts `useApiKey`): 401 for missing, unknown or revoked
 * keys, 403 for disabled ones and for a sending key on a route that needs
 * `full`, 429 past either limit. Writes go to the account's home replica,
 * where revoking and disabling are written, so they hold at once in every region.
 */
export async function authenticate(
  key: string | undefined,
  now = new Date(),
  permission?: KeyPermission,
): Promise<{ principal: Principal; window: RateWindow }> {
  const parsed = key ? parseKey(key) : undefined;
  if (!key || !parsed) throw unauthorized();
  const guard = { secretHash: hashKey(key), env: parsed.env, ...(permission === 'full' ? { permission } : {}) };
  let use = await useApiKey(parsed.accountId, parsed.keyId, now, LIMITS_BY_PLAN, guard);
  if (!use.admitted && use.refused === 'guard' && use.key && !use.key.plan && (await copyPlan(use.key))) {
    use = await useApiKey(parsed.accountId, parsed.keyId, now, LIMITS_BY_PLAN, guard);
  }
  if (!use.admitted && use.refused === 'guard') throw refusal(use.key, guard);
  const plan = use.key.plan!;
  const monthlyQuota = monthlyQuotaOf({ plan, ...(use.key.quotaOverride === undefined ? {} : { quotaOverride: use.key.quotaOverride }) });
  const window = windowOf(use.admitted ? use : { admitted: false, exhausted: use.refused, second: use.second }, plan, now);
  const { env, permission: keyPermission, domain } = use.key;
  return {
    principal: {
      accountId: parsed.accountId,
      keyId: parsed.keyId,
      env,
      permission: keyPermission,
      plan,
      monthlyQuota,
      ...(domain === undefined ? {} : { domain }),
    },
    window,
  };
}

/** Why the key item refused the request, checked in the order the answers rank: unknown (401), disabled (403), not allowed here (403). */
function refusal(found: ApiKeyRecord | undefined, guard: KeyGuard): AuthError {
  if (!found || found.revoked || found.env !== guard.env) return unauthorized();
  const expected = Buffer.from(found.secretHash, 'hex');
  const given = Buffer.from(guard.secretHash, 'hex');
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return unauthorized();
  if (found.disabled) return new AuthError('FORBIDDEN', 'This API key is disabled');
  if (guard.permission && found.permission !== guard.permission) return new AuthError('FORBIDDEN', 'This API key may only send email');
  return unauthorized();
}

/**
 * Keys made before they held their account's plan get it on first use: one
 * read and one write, once per key. True when the key now has a plan, whoever
 * wrote it (a plan change may have got there first).
 */
async function copyPlan(found: ApiKeyRecord): Promise<boolean> {
  const account = await getAccount(found.accountId, { consistent: true });
  if (!account) return false;
  await setApiKeyPlan(found.accountId, found.keyId, account);
  return true;
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
