/**
 * The account's suppression list as people and keys manage it
 * (docs/suppressions.md): list and search it, put addresses on it by hand,
 * lift one. The list itself, and how sends read it, belong to the send path
 * (shared/sending/suppression-store.ts); every change made here is written
 * with its audit event in one transaction.
 */
import * as v from 'valibot';
import { actorOf, type Principal } from '#shared/accounts/api-keys.ts';
import { auditWrite } from '#shared/events/service.ts';
import { TransactionCancelled, transactWrite } from '#shared/platform/dynamodb/client.ts';
import { AuthError, ConflictError, notFound } from '#shared/platform/errors.ts';
import { MAX_EMAIL_LENGTH } from '#shared/platform/schema/common.ts';
import { toValidationError } from '#shared/platform/schema/parse.ts';
import { decodeCursor, encodeCursor } from '#shared/platform/signing/cursors.ts';
import {
  getSuppressionRecord,
  mapConcurrently,
  newManualPut,
  querySuppressions,
  suppressionDelete,
  type SuppressionReason,
  type SuppressionRecord,
} from '#shared/sending/service.ts';
import { complaintConfirmationRequired } from './errors.ts';
import { suppressionAddress, type AddSuppressionsResult, type ApiSuppressionReason, type ListSuppressionsQuery, type SuppressionView } from './schema.ts';

const API_REASON: Record<SuppressionReason, ApiSuppressionReason> = {
  bounced: 'bounce',
  complained: 'complaint',
  unsubscribed: 'unsubscribe',
  manual: 'manual',
};

const STORED_REASON = Object.fromEntries(Object.entries(API_REASON).map(([stored, api]) => [api, stored])) as Record<ApiSuppressionReason, SuppressionReason>;

function suppressionView(record: SuppressionRecord): SuppressionView {
  return { email: record.email, reason: API_REASON[record.reason], createdAt: record.createdAt, source: record.source };
}

/** Writes at once while adding: a thousand addresses take about forty round trips. */
const ADDS_AT_ONCE = 25;

/**
 * Changing the list decides what live mail reaches: a test key, which never
 * sends for real, reads it but may not change it.
 */
function assertMayChange(principal: Principal): void {
  if (principal.env === 'test') throw new AuthError('FORBIDDEN', 'A test key may read the suppression list but not change it');
}

/** One page in address order; `search` is the start of the address. */
export async function listSuppressions(
  accountId: string,
  query: ListSuppressionsQuery,
): Promise<{ suppressions: SuppressionView[]; nextCursor: string | null }> {
  const prefix = query.search || undefined;
  // The cursor holds a position in one filtered list: another search or reason refuses it.
  const scope = `suppressions?search=${prefix ?? ''}&reason=${query.reason ?? ''}`;
  const { suppressions, lastKey } = await querySuppressions(accountId, {
    ...(prefix ? { prefix } : {}),
    ...(query.reason ? { reason: STORED_REASON[query.reason] } : {}),
    limit: query.limit,
    ...(query.cursor ? { startKey: await decodeCursor(accountId, scope, query.cursor) } : {}),
  });
  return { suppressions: suppressions.map(suppressionView), nextCursor: lastKey ? await encodeCursor(accountId, scope, lastKey) : null };
}

/**
 * Puts each valid address on the list as `manual`, with its
 * `suppression.added` event, unless it is there already for any reason (then
 * it counts in `already` and keeps its reason). A bad entry is reported by
 * its index and does not stop the others; an address given twice counts once.
 */
export async function addSuppressions(principal: Principal, emails: readonly unknown[], now: Date): Promise<AddSuppressionsResult> {
  assertMayChange(principal);
  const actor = actorOf(principal);
  const errors: AddSuppressionsResult['errors'] = [];
  const distinct = new Set<string>();
  let repeated = 0;
  emails.forEach((entry, index) => {
    const parsed = v.safeParse(suppressionAddress, entry, { abortEarly: true });
    if (!parsed.success) {
      const error = toValidationError(parsed.issues[0], `emails[${index}]`);
      // Only a string is echoed: anything else could be any depth of JSON, which the reply would carry back whole.
      errors.push({ index, email: typeof entry === 'string' ? entry : null, error: error.code, message: error.message, field: `emails[${index}]` });
    } else if (distinct.has(parsed.output)) repeated++;
    else distinct.add(parsed.output);
  });
  const outcomes = await mapConcurrently([...distinct], ADDS_AT_ONCE, async (email) => {
    try {
      await transactWrite([
        newManualPut(principal.accountId, email, actor, now),
        ...auditWrite(
          principal.accountId,
          'suppression.added',
          { email, reason: 'manual' },
          actor,
          `suppression:${email}:added:${now.getTime()}`,
          now.getTime(),
        ),
      ]);
      return 'added' as const;
    } catch (error) {
      if (error instanceof TransactionCancelled && error.reasons[0] === 'ConditionalCheckFailed') return 'already' as const;
      throw error;
    }
  });
  const added = outcomes.filter((outcome) => outcome === 'added').length;
  return { added, already: outcomes.length - added + repeated, failed: errors.length, errors };
}

/**
 * Lifts one address's suppression, with its `suppression.removed` event.
 * A complaint means the recipient called this mail spam: only an admin (or a
 * full key) lifts one, and only with `confirm=complaint`.
 */
export async function removeSuppression(principal: Principal, address: string, confirm: 'complaint' | undefined, now: Date): Promise<SuppressionView> {
  assertMayChange(principal);
  const email = address.trim().toLowerCase();
  const record = email.length > 0 && email.length <= MAX_EMAIL_LENGTH ? await getSuppressionRecord(principal.accountId, email) : undefined;
  if (!record) throw notFound.suppression();
  if (record.reason === 'complained') {
    if (principal.session && principal.session.role !== 'admin') throw new AuthError('FORBIDDEN', "Only the account's admins may lift a complaint");
    if (confirm !== 'complaint') throw complaintConfirmationRequired();
  }
  const view = suppressionView(record);
  try {
    await transactWrite([
      suppressionDelete(principal.accountId, record),
      ...auditWrite(
        principal.accountId,
        'suppression.removed',
        { email, reason: view.reason },
        actorOf(principal),
        `suppression:${email}:removed:${record.createdAt}`,
        now.getTime(),
      ),
    ]);
  } catch (error) {
    if (error instanceof TransactionCancelled) throw new ConflictError('CONFLICT', 'The suppression changed meanwhile; read it again and retry');
    throw error;
  }
  return view;
}
