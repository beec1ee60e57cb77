import { getMapped, queryAll, tableName, transactWrite, TransactionCancelled, updateIf, type TransactItems } from '#shared/platform/dynamodb/client.ts';
import { countIf, inRounds, NEXT_ROUND } from '#shared/platform/dynamodb/conditional-counter.ts';
import { accountKey } from '#shared/platform/dynamodb/account-item.ts';
import type { Plan } from './plans.ts';
import { optionalStrings, strings } from '#shared/platform/dynamodb/attributes.ts';

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
  /** A sending key's one domain to send from (shared/sending/sender.ts). */
  domain?: string;
  /** The secret's last 4 characters, to tell keys apart in a list; absent on keys made before it was kept. */
  hint?: string;
  /**
   * The account's plan and quota override, copied so that the key item alone
   * holds what a request's check needs: the check is one conditional write of
   * this item, and reading the account too would add a read (and, outside the
   * home region, a round trip) to every request. A change of plan rewrites the
   * copy on every key of the account (`setApiKeyPlan`). Absent on keys made
   * before it was copied, which get it on first use.
   */
  plan?: Plan;
  quotaOverride?: number;
  /** The account's `planVersion` the copy was made at: an older copy never overwrites a newer one. */
  planVersion?: number;
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
    ...optionalStrings(item, 'lastUsedAt', 'domain', 'hint'),
    ...(typeof item.plan === 'string' ? { plan: item.plan as Plan } : {}),
    ...(typeof item.quotaOverride === 'number' ? { quotaOverride: item.quotaOverride } : {}),
    ...(typeof item.planVersion === 'number' ? { planVersion: item.planVersion } : {}),
  };
}

/** What a key copies of its account: plan, quota override, and the version they were read at. */
export type PlanCopy = Pick<ApiKeyRecord, 'plan' | 'quotaOverride' | 'planVersion'>;

/** `planVersion = :version`, where an account never changed has none. */
function atPlanVersion(version: number | undefined): { ConditionExpression: string; ExpressionAttributeValues?: Record<string, unknown> } {
  return version === undefined
    ? { ConditionExpression: 'attribute_not_exists(planVersion)' }
    : { ConditionExpression: 'planVersion = :version', ExpressionAttributeValues: { ':version': version } };
}

/**
 * Puts a new key with its copy of the account's plan, provided the account is
 * still at the copy's version: false when its plan changed since it was read
 * (the caller reads it again), so no key is born with a plan the last change
 * of the account did not reach.
 */
export async function putApiKey(key: ApiKeyRecord, alongside: TransactItems = []): Promise<boolean> {
  try {
    await transactWrite([
      {
        Put: {
          TableName: tableName,
          Item: { ...apiKeyKey(key.accountId, key.keyId), entity: 'apiKey', ...key },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      { ConditionCheck: { TableName: tableName, Key: accountKey(key.accountId), ...atPlanVersion(key.planVersion) } },
      ...alongside,
    ]);
    return true;
  } catch (error) {
    if (error instanceof TransactionCancelled && error.reasons[1] === 'ConditionalCheckFailed') return false;
    throw error;
  }
}

/** `consistent`: read in the account's home replica, for a rewrite of every key (a plan change). */
export async function listApiKeys(accountId: string, options: { consistent?: boolean } = {}): Promise<ApiKeyRecord[]> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': accountId, ':prefix': KEY_PREFIX },
    ...(options.consistent ? { ConsistentRead: true } : {}),
  });
  return items.map(toApiKey);
}

/**
 * Writes the account's plan and quota override onto the key, unless it holds a
 * copy of a later version already (racing plan changes settle on the last);
 * false when the account has no such key or its copy is newer.
 */
export function setApiKeyPlan(accountId: string, keyId: string, copy: PlanCopy): Promise<boolean> {
  const version = copy.planVersion ?? 0;
  return updateIf({
    Key: apiKeyKey(accountId, keyId),
    UpdateExpression: `SET #plan = :plan, planVersion = :version${copy.quotaOverride === undefined ? ' REMOVE quotaOverride' : ', quotaOverride = :quota'}`,
    ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(planVersion) OR planVersion <= :version)',
    ExpressionAttributeNames: { '#plan': 'plan' },
    ExpressionAttributeValues: { ':plan': copy.plan, ':version': version, ...(copy.quotaOverride === undefined ? {} : { ':quota': copy.quotaOverride }) },
  });
}

/** The key as stored, revoked or not; read in the home replica, where changes to it are made. */
export function getApiKey(accountId: string, keyId: string): Promise<ApiKeyRecord | undefined> {
  return getMapped(apiKeyKey(accountId, keyId), toApiKey);
}

/** What a change of a key over the API may set. */
export type ApiKeyChange = Partial<Pick<ApiKeyRecord, 'name' | 'disabled' | 'revoked'>>;

/**
 * Changes a key that is not revoked, with the `alongside` items (its audit
 * event) in the same transaction; false when the account has no such key or
 * it was revoked meanwhile. The authentication's own write of the item (its
 * windows) outlasts the transaction (`countIf`).
 */
export async function changeApiKey(accountId: string, keyId: string, change: ApiKeyChange, alongside: TransactItems): Promise<boolean> {
  const fields = Object.entries(change).filter(([, value]) => value !== undefined);
  try {
    await transactWrite([
      {
        Update: {
          TableName: tableName,
          Key: apiKeyKey(accountId, keyId),
          UpdateExpression: `SET ${fields.map(([field]) => `#${field} = :${field}`).join(', ')}`,
          ConditionExpression: 'attribute_exists(pk) AND #revoked = :false',
          ExpressionAttributeNames: { '#revoked': 'revoked', ...Object.fromEntries(fields.map(([field]) => [`#${field}`, field])) },
          ExpressionAttributeValues: { ':false': false, ...Object.fromEntries(fields.map(([field, value]) => [`:${field}`, value])) },
        },
      },
      ...alongside,
    ]);
    return true;
  } catch (error) {
    if (error instanceof TransactionCancelled && error.reasons[0] === 'ConditionalCheckFailed') return false;
    throw error;
  }
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

/** A plan's request limits, as the key item's windows enforce them. */
export interface WindowLimits {
  perSecond: number;
  /** `null`: no daily cap. */
  perDay: number | null;
}

/** What a request must present for its key item to count it: the key's hash, environment and, on full routes, permission. */
export interface KeyGuard {
  secretHash: string;
  env: KeyEnvironment;
  permission?: KeyPermission;
}

/**
 * The outcome of counting one request on its key item. `second`: the epoch
 * second whose window counted (or refused) it: usually the one of `now`, a
 * later one when another instance had already opened it.
 */
export type KeyUse =
  | { admitted: true; key: ApiKeyRecord; secondCount: number; second: number }
  | { admitted: false; refused: 'guard'; key: ApiKeyRecord | undefined }
  | { admitted: false; refused: 'second' | 'day'; second: number; key: ApiKeyRecord };

/**
 * The request windows live on the key item (`rateSecond`, `rateSecondCount`,
 * `rateDay`, `rateDayCount`), so the check of the key, both limits and
 * last-used are one conditional UpdateItem. An update cannot branch, so each
 * attempt states which window it expects: the same second (increment), a new
 * second of the same day, or a new day. The guess comes from the windows this
 * instance saw last for the key; a wrong guess fails its condition, whose
 * returned item names the right one for the next attempt.
 */
type WindowMove = 'same' | 'second' | 'day';

/** What this instance last saw of each key's windows; only the guess reads it, the condition decides. */
const seenWindows = new Map<string, { second: number; day: string }>();
const SEEN_WINDOWS_LIMIT = 10_000;

function remember(keyId: string, second: number, day: string): void {
  if (seenWindows.size >= SEEN_WINDOWS_LIMIT) seenWindows.clear();
  seenWindows.set(keyId, { second, day });
}

/**
 * `attribute < limit` for the limit of the item's plan: one comparison when
 * every plan has the same limit, else one branch per plan; undefined when no
 * plan caps it (`null`: no cap).
 */
function underLimit(attribute: string, limits: Partial<Record<Plan, number | null>>, values: Record<string, unknown>): string | undefined {
  const distinct = new Set(Object.values(limits));
  if (distinct.size === 1) {
    const [limit] = distinct;
    if (limit === null) return undefined;
    values[`:${attribute}Limit`] = limit;
    return `${attribute} < :${attribute}Limit`;
  }
  const branches = Object.entries(limits).map(([plan, limit]) => {
    values[`:plan_${plan}`] = plan;
    if (limit === null) return `#plan = :plan_${plan}`;
    values[`:${attribute}_${plan}`] = limit;
    return `(#plan = :plan_${plan} AND ${attribute} < :${attribute}_${plan})`;
  });
  return branches.join(' OR ');
}

/** The key as the request presents it: its hash and environment, live (neither revoked nor disabled), with a plan, and the permission a full route needs. */
function guardClause(guard: KeyGuard, values: Record<string, unknown>): string {
  Object.assign(values, { ':hash': guard.secretHash, ':env': guard.env, ':false': false });
  const clause = '#hash = :hash AND #env = :env AND #revoked = :false AND #disabled = :false AND attribute_exists(#plan)';
  if (!guard.permission) return clause;
  values[':permission'] = guard.permission;
  return `${clause} AND #permission = :permission`;
}

const GUARD_NAMES = {
  '#hash': 'secretHash',
  '#env': 'env',
  '#revoked': 'revoked',
  '#disabled': 'disabled',
  '#plan': 'plan',
  '#permission': 'permission',
};

/** The windows each move expects the item to hold: the write's own condition, beside the limits. */
const WINDOW_EXPECTED: Record<WindowMove, string> = {
  same: 'rateSecond = :second AND rateDay = :day',
  second: 'rateSecond < :second AND rateDay = :day',
  day: 'attribute_not_exists(rateDay) OR rateDay < :day',
};

const WINDOW_UPDATES: Record<WindowMove, string> = {
  same: 'rateSecondCount = rateSecondCount + :one, rateDayCount = rateDayCount + :one',
  second: 'rateSecond = :second, rateSecondCount = :one, rateDayCount = rateDayCount + :one',
  day: 'rateSecond = :second, rateSecondCount = :one, rateDay = :day, rateDayCount = :one',
};

/** A refusal's key that the guard does not let through, whatever the windows. */
function failsGuard(key: ApiKeyRecord | undefined, guard: KeyGuard | undefined): boolean {
  if (!key) return true;
  if (!guard) return false;
  return (
    key.secretHash !== guard.secretHash ||
    key.env !== guard.env ||
    key.revoked ||
    key.disabled ||
    !key.plan ||
    (guard.permission !== undefined && key.permission !== guard.permission)
  );
}

/**
 * Counts one request on the key item, in one conditional UpdateItem (two or
 * three when another instance moved the windows meanwhile): with a `guard`,
 * only for an existing key with that hash and environment that is neither
 * revoked nor disabled (and has `permission`), within the limits of the plan
 * the item records; it also stamps `lastUsedAt`. DynamoDB serialises writes
 * to one item, so no two instances can admit past a limit.
 */
export async function useApiKey(accountId: string, keyId: string, now: Date, limits: Partial<Record<Plan, WindowLimits>>, guard?: KeyGuard): Promise<KeyUse> {
  let second = Math.floor(now.getTime() / 1000);
  let day = now.toISOString().slice(0, 10);
  const seen = seenWindows.get(keyId);
  let move: WindowMove = !seen || seen.day < day ? 'day' : seen.day > day || seen.second >= second ? 'same' : 'second';
  if (seen && move === 'same') ({ second, day } = seen);
  const values: Record<string, unknown> = { ':one': 1, ':now': now.toISOString() };
  const guarded = guard && guardClause(guard, values);
  const perSecond = underLimit('rateSecondCount', Object.fromEntries(Object.entries(limits).map(([plan, limit]) => [plan, limit.perSecond])), values);
  const perDay = underLimit('rateDayCount', Object.fromEntries(Object.entries(limits).map(([plan, limit]) => [plan, limit.perDay])), values);
  let refusedBy: ApiKeyRecord | undefined;

  // Each refusal moves the guess forward (day, then second, then same), so a few rounds cover any interleaving.
  return inRounds<KeyUse>(
    async () => {
      const counted = await countIf({
        key: apiKeyKey(accountId, keyId),
        update: `SET ${WINDOW_UPDATES[move]}, lastUsedAt = :now`,
        limit: {
          exists: 'attribute_exists(pk)',
          guard: guarded,
          windows: WINDOW_EXPECTED[move],
          perSecond: move === 'same' ? perSecond : undefined,
          perDay: move === 'day' ? undefined : perDay,
        },
        names: GUARD_NAMES,
        values: { ...values, ':second': second, ':day': day },
        returning: 'ALL_NEW',
      });
      if (counted.admitted) {
        remember(keyId, second, day);
        return { admitted: true, key: toApiKey(counted.item), secondCount: Number(counted.item.rateSecondCount), second };
      }
      const { old } = counted;
      const key = old ? toApiKey(old) : undefined;
      refusedBy = key;
      if (failsGuard(key, guard)) return { admitted: false, refused: 'guard', key };
      const oldDay = typeof old!.rateDay === 'string' ? old!.rateDay : '';
      const oldSecond = typeof old!.rateSecond === 'number' ? old!.rateSecond : 0;
      // Another instance (a later request, or a clock a little ahead) already opened a newer window: count in it.
      if (oldDay > day) day = oldDay;
      if (oldDay === day && oldSecond > second) second = oldSecond;
      remember(keyId, oldSecond, oldDay);
      if (oldDay !== day) {
        move = 'day';
        return NEXT_ROUND;
      }
      const limit = (key!.plan && limits[key!.plan]) ?? Object.values(limits)[0]!;
      if (limit.perDay !== null && Number(old!.rateDayCount) >= limit.perDay) return { admitted: false, refused: 'day', second, key: key! };
      if (oldSecond === second && Number(old!.rateSecondCount) >= limit.perSecond) return { admitted: false, refused: 'second', second, key: key! };
      move = oldSecond === second ? 'same' : 'second';
      return NEXT_ROUND;
    },
    { rounds: 4, exhausted: () => ({ admitted: false, refused: 'second', second, key: refusedBy! }) },
  );
}
