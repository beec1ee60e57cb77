/**
 * Idempotency keys of the four send endpoints (POST /api/email/send,
 * /api/email/batch, /api/otp/send and /api/transactional/send), after
 * Powertools' IdempotencyHandler: the first request with a key claims it (a
 * conditional write, so of two racing requests exactly one wins), runs, and
 * stores its response; later requests with the same key and body get that
 * response back without running; a different body is refused; a request whose
 * claim is still in flight is told to retry. A run may read beside its claim
 * (`overlappingClaim`: it waits for the claim before its first write, and may
 * complete the key in that write); `idempotentSend` runs only once the claim
 * is held. A failed run gives its claim back so the client can retry at once;
 * a crashed one holds it only until its lease ends.
 */
import { createHash, randomUUID } from 'node:crypto';
import {
  claimIdempotencyKey,
  completedIdempotencyItem,
  completeIdempotencyKey,
  idempotencyScope,
  releaseIdempotencyKey,
  type IdempotencyKey,
  type IdempotencyRecord,
} from './idempotency-store.ts';
import { PostlaneError } from '#shared/platform/errors.ts';
import { log } from '#shared/platform/log.ts';

/** Decisions: keys are kept 24 hours. */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;
/** Longer than a function may run (28 s), so a live request never loses its claim to a retry. */
export const IN_PROGRESS_LEASE_MS = 30_000;

export class IdempotencyKeyReusedError extends PostlaneError {
  override readonly name = 'IdempotencyKeyReusedError';
  constructor() {
    super('IDEMPOTENCY_KEY_REUSED', 'This idempotency key was already used with a different request body', { field: 'idempotencyKey' });
  }
}

export class IdempotencyInProgressError extends PostlaneError {
  override readonly name = 'IdempotencyInProgressError';
  constructor(retryAfter: number) {
    super('IDEMPOTENCY_IN_PROGRESS', 'A request with this idempotency key is still in progress; retry shortly', { field: 'idempotencyKey', retryAfter });
  }
}

/**
 * Thrown by an idempotent request's work that took effect (its email left) but
 * failed afterwards: the claim is completed with `response` rather than given
 * back, so a retry with the same key replays it instead of sending again. The
 * request itself still fails with `cause`.
 */
export class EffectCommittedError extends Error {
  override readonly name = 'EffectCommittedError';
  constructor(
    readonly response: Record<string, unknown>,
    override readonly cause: unknown,
  ) {
    super('The request took effect but failed afterwards', { cause });
  }
}

export interface IdempotencyOptions {
  accountId: string;
  /** Where the key is unique besides the account: `live#otp/send`. */
  scope: string;
  /** The client's key; without one the request simply runs. */
  key: string | undefined;
  /** What "the same request" means: the validated body, without the key itself. */
  payload: unknown;
  now: Date;
}

export interface Idempotent<T> {
  response: T;
  /** True when this is the stored response of an earlier request. */
  replayed: boolean;
}

/** JSON with object keys sorted at every level, so equal bodies hash equally whatever their key order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function payloadHash(payload: unknown): string {
  return createHash('sha256').update(canonicalJson(payload)).digest('hex');
}

function answerFrom<T>(record: IdempotencyRecord, hash: string, now: Date): Idempotent<T> {
  if (record.payloadHash !== hash) throw new IdempotencyKeyReusedError();
  if (record.status === 'COMPLETED') return { response: record.response as T, replayed: true };
  throw new IdempotencyInProgressError(Math.max(1, Math.ceil((record.leaseUntil - now.getTime()) / 1000)));
}

/**
 * What a run that overlaps its key's claim gets: `held` settles while the run
 * reads, and resolves once this request holds the key (it rejects when
 * another request does); the run awaits it before its first write.
 * `completion(response)` is the key's completed record, for the run to put in
 * its own last write instead of a call of its own (undefined without a key).
 */
export interface ClaimGate {
  held: Promise<void>;
  completion(response: Record<string, unknown>): Record<string, unknown> | undefined;
}

const OPEN_GATE: ClaimGate = { held: Promise.resolve(), completion: () => undefined };

/** A run that reads nothing before its first write: it waits for the claim. */
const afterClaim =
  <T>(fn: () => Promise<T>) =>
  async (gate: ClaimGate): Promise<T> => {
    await gate.held;
    return fn();
  };

/**
 * A send endpoint's `fn` run at most once per `idempotencyKey` of the request,
 * the key scoped to the caller's account, its live or test keys and the
 * endpoint. `payload` is what "the same request" means: by default the body
 * without its key.
 */
export function idempotentSend<T extends Record<string, unknown>>(
  endpoint: string,
  input: { idempotencyKey?: string | undefined },
  context: { principal: { accountId: string; env: string }; now: Date },
  fn: () => Promise<T>,
  payload: unknown = { ...input, idempotencyKey: undefined },
): Promise<Idempotent<T>> {
  return overlappingClaim(endpoint, input, context, afterClaim(fn), payload);
}

/**
 * As idempotentSend, for a `fn` that reads beside the claim: it must await
 * `gate.held` before anything with an effect, and may complete the key in its
 * own last write (`gate.completion`).
 */
export function overlappingClaim<T extends Record<string, unknown>>(
  endpoint: string,
  input: { idempotencyKey?: string | undefined },
  context: { principal: { accountId: string; env: string }; now: Date },
  fn: (gate: ClaimGate) => Promise<T>,
  payload: unknown = { ...input, idempotencyKey: undefined },
): Promise<Idempotent<T>> {
  const { principal, now } = context;
  return runOnce({ accountId: principal.accountId, scope: idempotencyScope(principal.env, endpoint), key: input.idempotencyKey, payload, now }, fn);
}

/**
 * Runs `fn` at most once per key: see the module comment.
 *
 * `await makeIdempotent({ accountId, scope: idempotencyScope('live', 'otp/send'), key, payload, now }, () => send())`
 */
export function makeIdempotent<T extends Record<string, unknown>>(options: IdempotencyOptions, fn: () => Promise<T>): Promise<Idempotent<T>> {
  return runOnce(options, afterClaim(fn));
}

/** Another request holds the key: the run stops at its gate, and the request answers from that request's record. */
class KeyHeldElsewhere extends Error {
  override readonly name = 'KeyHeldElsewhere';
}

async function runOnce<T extends Record<string, unknown>>(options: IdempotencyOptions, fn: (gate: ClaimGate) => Promise<T>): Promise<Idempotent<T>> {
  if (options.key === undefined) {
    try {
      return { response: await fn(OPEN_GATE), replayed: false };
    } catch (error) {
      // Nothing to complete without a key: the request fails with what went wrong.
      throw error instanceof EffectCommittedError ? error.cause : error;
    }
  }
  const id: IdempotencyKey = { accountId: options.accountId, scope: options.scope, key: options.key };
  const hash = payloadHash(options.payload);
  const token = randomUUID();
  const now = options.now.getTime();
  const claimed = { payloadHash: hash, token, leaseUntil: now + IN_PROGRESS_LEASE_MS, expiresAt: Math.floor(now / 1000) + IDEMPOTENCY_TTL_SECONDS };
  const claiming = claimIdempotencyKey(id, claimed, options.now);
  let completedInBand = false;
  const gate: ClaimGate = {
    held: claiming.then((claim) => {
      if (!claim.claimed) throw new KeyHeldElsewhere();
    }),
    completion: (response) => {
      completedInBand = true;
      // Written without a condition: the lease outlasts the function, so the claim is still this request's when its run ends.
      return completedIdempotencyItem(id, { ...claimed, response });
    },
  };
  // A run that fails before its gate leaves it unawaited: its outcome is read below.
  gate.held.catch(() => undefined);
  const [claim, run] = await Promise.allSettled([claiming, fn(gate)]);
  if (claim.status === 'rejected') throw claim.reason;
  if (!claim.value.claimed) return answerFrom<T>(claim.value.existing, hash, options.now);
  if (run.status === 'rejected') {
    const error: unknown = run.reason;
    if (error instanceof EffectCommittedError) {
      await complete(id, token, error.response);
      throw error.cause;
    }
    // Also drops a completion the run wrote before it failed: it carries this request's token.
    await releaseIdempotencyKey(id, token).catch((releaseError: unknown) => {
      log.warn('idempotency key not released; it frees itself when its lease ends', { accountId: id.accountId, error: releaseError });
    });
    throw error;
  }
  if (!completedInBand) await complete(id, token, run.value);
  return { response: run.value, replayed: false };
}

/** The send happened: never release now, or a retry would send again. */
async function complete(id: IdempotencyKey, token: string, response: Record<string, unknown>): Promise<void> {
  try {
    if (!(await completeIdempotencyKey(id, token, response))) {
      log.warn('idempotency claim lost before completion', { accountId: id.accountId, scope: id.scope });
    }
  } catch (error) {
    // Left in flight: retries are told to wait until the lease ends, not sent again at once.
    log.error('idempotency key not completed; it stays in flight until its lease ends', { accountId: id.accountId, scope: id.scope, error });
  }
}
