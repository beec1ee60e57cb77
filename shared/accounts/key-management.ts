/**
 * API keys managed over the API (`/api/api-keys`) and the admin CLI: made,
 * listed, renamed, disabled and revoked, each change written with its audit
 * event (`api_key.*`) in one transaction. Kept apart from api-keys.ts, which
 * every keyed function bundles for authentication, so that only the
 * functions that manage keys carry the event log and the domain check.
 *
 * Choices where the decisions leave room (docs/api.md, "API keys"):
 * - A test key manages test keys only: it may not make a live key (which
 *   would send for real) nor disable or revoke one (which would stop
 *   production), so test credentials handed to a CI job stay harmless.
 * - A key may disable or revoke itself, as Resend and GitHub let a token be
 *   revoked with itself: a leaked key is put out of use by whoever holds it,
 *   and the account is never locked out by it, since the dashboard's admins
 *   and the operator make keys without one.
 */
import { auditWrite, OPERATOR, type Actor } from '#shared/events/service.ts';
import { getDomainRecord } from '#shared/domains/service.ts';
import { AuthError, notFound, ValidationError } from '#shared/platform/errors.ts';
import { findById } from '#shared/platform/lookup.ts';
import { randomBase62 } from '#shared/platform/ids.ts';
import { pagination, type ListPage } from '#shared/platform/schema/common.ts';
import type * as v from 'valibot';
import { createApiKey, type Principal } from './api-keys.ts';
import { changeApiKey, getApiKey, listApiKeys, type ApiKeyChange, type ApiKeyRecord, type KeyEnvironment } from './api-key-store.ts';
import type { apiKeySchema, CreateApiKeyInput, createdApiKeySchema, UpdateApiKeyInput } from './schema.ts';

export type ApiKeyView = v.InferOutput<typeof apiKeySchema>;
export type CreatedApiKey = v.InferOutput<typeof createdApiKeySchema>;

/** Who manages keys: the account, who is acting for the audit events, and the environment it may touch. */
export interface KeyManager {
  accountId: string;
  actor: Actor;
  /** `test`: only test keys. */
  env: KeyEnvironment;
}

/** The caller of an authenticated request as a key manager. */
export function managerOf(principal: Pick<Principal, 'accountId' | 'env'>, actor: Actor): KeyManager {
  return { accountId: principal.accountId, actor, env: principal.env };
}

/** The operator at the admin CLI, for `accountId`: every key, live or test. */
export const operatorOf = (accountId: string): KeyManager => ({ accountId, actor: OPERATOR, env: 'live' });

function mayTouch(manager: KeyManager, env: KeyEnvironment, field?: string): void {
  if (manager.env === 'test' && env === 'live') {
    throw new AuthError('FORBIDDEN', 'A test key may manage test keys only', field === undefined ? {} : { field });
  }
}

/** What the audit events say of a key: never its secret, its hash or its hint. */
function eventData(key: ApiKeyRecord): Record<string, unknown> {
  return { apiKeyId: key.keyId, name: key.name, permission: key.permission, env: key.env, domain: key.domain ?? null, disabled: key.disabled };
}

function toView(key: ApiKeyRecord): ApiKeyView {
  return {
    id: key.keyId,
    name: key.name,
    permission: key.permission,
    env: key.env,
    domain: key.domain ?? null,
    disabled: key.disabled,
    hint: key.hint ?? null,
    createdAt: key.createdAt,
    lastUsedAt: key.lastUsedAt ?? null,
  };
}

/**
 * A new key, its secret in the answer and nowhere else. A `domain` must be a
 * verified domain of the account now (422 on `domain`); should it be deleted
 * later, the key sends from nothing at all rather than from anywhere.
 */
export async function createKey(manager: KeyManager, input: CreateApiKeyInput, now: Date): Promise<CreatedApiKey> {
  mayTouch(manager, input.env, 'env');
  if (input.domain !== undefined && !(await getDomainRecord(manager.accountId, input.domain))?.verified) {
    throw new ValidationError('VALIDATION_ERROR', 'domain must be a verified domain of this account', 'domain');
  }
  let made: ApiKeyRecord | undefined;
  const { key } = await createApiKey(
    {
      accountId: manager.accountId,
      env: input.env,
      permission: input.permission,
      name: input.name,
      ...(input.domain === undefined ? {} : { domain: input.domain }),
    },
    now,
    (record) => {
      made = record;
      return auditWrite(manager.accountId, 'api_key.created', eventData(record), manager.actor, `api_key:${record.keyId}:created`, now.getTime());
    },
  );
  const { keyId, name, permission, env, domain, createdAt } = made!;
  return { id: keyId, name, permission, env, domain: domain ?? null, key, createdAt };
}

/** The account's keys that are not revoked, newest first (ids sort by time); an account has a handful, read in one query. */
export async function listKeyPage(accountId: string, page: number, limit: number): Promise<ListPage<'keys', ApiKeyView>> {
  const live = (await listApiKeys(accountId)).filter((key) => !key.revoked).sort((a, b) => (a.keyId < b.keyId ? 1 : -1));
  return { keys: live.slice((page - 1) * limit, page * limit).map(toView), pagination: pagination(live.length, page, limit) };
}

/** The key to change: not revoked (a revoked key is gone, API_KEY_NOT_FOUND), and one the manager may touch. */
async function changeable(manager: KeyManager, keyId: string): Promise<ApiKeyRecord> {
  const key = await findById('key', keyId, () => getApiKey(manager.accountId, keyId), notFound.apiKey);
  if (key.revoked) throw notFound.apiKey();
  mayTouch(manager, key.env);
  return key;
}

/** The key changed and its event, or API_KEY_NOT_FOUND when it was revoked meanwhile. */
async function applyChange(
  manager: KeyManager,
  key: ApiKeyRecord,
  change: ApiKeyChange,
  event: (changed: ApiKeyRecord) => ReturnType<typeof auditWrite>,
): Promise<ApiKeyRecord> {
  const changed = { ...key, ...change };
  if (!(await changeApiKey(manager.accountId, key.keyId, change, event(changed)))) throw notFound.apiKey();
  return changed;
}

/**
 * Renames, disables or enables a key. A disabled key is refused from its next
 * request, in every region: the key check is a write of the key item in the
 * account's home replica, where this change is made. A change that leaves
 * every value as it was writes nothing and records no event.
 */
export async function updateKey(manager: KeyManager, keyId: string, input: UpdateApiKeyInput, now: Date): Promise<ApiKeyView> {
  const key = await changeable(manager, keyId);
  const change: ApiKeyChange = {
    ...(input.name !== undefined && input.name !== key.name ? { name: input.name } : {}),
    ...(input.disabled !== undefined && input.disabled !== key.disabled ? { disabled: input.disabled } : {}),
  };
  if (Object.keys(change).length === 0) return toView(key);
  const changed = await applyChange(manager, key, change, (after) =>
    auditWrite(
      manager.accountId,
      'api_key.updated',
      { ...eventData(after), changes: Object.keys(change) },
      manager.actor,
      // Each update is a change of its own: nothing reports it twice.
      `api_key:${keyId}:updated:${randomBase62(16)}`,
      now.getTime(),
    ),
  );
  return toView(changed);
}

/** Revokes a key for good: 401 from its next request, in every region, and no longer listed. */
export async function revokeKey(manager: KeyManager, keyId: string, now: Date): Promise<void> {
  const key = await changeable(manager, keyId);
  await applyChange(manager, key, { revoked: true }, (after) =>
    auditWrite(manager.accountId, 'api_key.revoked', eventData(after), manager.actor, `api_key:${keyId}:revoked`, now.getTime()),
  );
}
