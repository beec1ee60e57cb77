/**
 * The account's suppression list as people and keys manage it
 * (docs/suppressions.md): list and search it, put addresses on it by hand,
 * lift one. The list itself, and how sends read it, belong to the send path
 * (shared/sending/suppression-store.ts); every change made here is written
 * with its audit event in one transaction.
 *
 * SES feedback records a bounce or complaint of an address that is a contact
 * on the contact (its status, in each audience), not on the list; sends read
 * both. So what is listed here is the list, then the contacts whose status is
 * bounced or complained, and lifting an address lifts both.
 */
import * as v from 'valibot';
import { actorOf, type Principal } from '#shared/accounts/api-keys.ts';
import { auditWrite } from '#shared/events/service.ts';
import { TransactionCancelled, transactWrite } from '#shared/platform/dynamodb/client.ts';
import { AuthError, ConflictError, notFound, ValidationError } from '#shared/platform/errors.ts';
import { changeContactStatus, contactsInStatus, findContactsByEmail, type ContactRecord } from '#shared/contacts/service.ts';
import type { ContactStatus } from '#shared/audiences/contact-status.ts';
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

/** The contact statuses that stop every send, OTP and transactional included, as a list entry of the same reason does. */
const BLOCKING_STATUSES = ['bounced', 'complained'] as const satisfies readonly (ContactStatus & SuppressionReason)[];
type BlockingStatus = (typeof BLOCKING_STATUSES)[number];
const isBlocking = (status: ContactStatus): status is BlockingStatus => (BLOCKING_STATUSES as readonly ContactStatus[]).includes(status);

/** A contact's own bounce or complaint as a row of the list; its last change stands for when (the status's own date is not kept). */
function contactView(contact: ContactRecord & { status: BlockingStatus }): SuppressionView {
  return {
    email: contact.email,
    reason: API_REASON[contact.status],
    createdAt: contact.updatedAt,
    source: { type: 'contact', id: contact.contactId, audienceId: contact.audienceId },
  };
}

/** Where a listing reads, in order: the list's partition, then each blocking status's contacts. */
type Part = 'list' | BlockingStatus;

function partsFor(reason: ApiSuppressionReason | undefined): Part[] {
  if (reason === undefined) return ['list', ...BLOCKING_STATUSES];
  if (reason === 'bounce') return ['list', 'bounced'];
  if (reason === 'complaint') return ['list', 'complained'];
  return ['list'];
}

/** Queries one page may make to fill itself: a filter (search, reason) can leave a query's page short or empty. */
const QUERIES_PER_PAGE = 5;

/** Writes at once while adding: a thousand addresses take about forty round trips. */
const ADDS_AT_ONCE = 25;

/**
 * Changing the list decides what live mail reaches: a test key, which never
 * sends for real, reads it but may not change it.
 */
function assertMayChange(principal: Principal): void {
  if (principal.env === 'test') throw new AuthError('FORBIDDEN', 'A test key may read the suppression list but not change it');
}

/**
 * One page: the list in address order, then the contacts in bounced and then
 * in complained status (oldest first). `search` is the start of the address;
 * the cursor names the part it stopped in and its position there.
 */
export async function listSuppressions(
  accountId: string,
  query: ListSuppressionsQuery,
): Promise<{ suppressions: SuppressionView[]; nextCursor: string | null }> {
  const prefix = query.search || undefined;
  // The cursor holds a position in one filtered list: another search or reason refuses it.
  const scope = `suppressions?search=${prefix ?? ''}&reason=${query.reason ?? ''}`;
  const parts = partsFor(query.reason);
  const { part: startPart, ...startKey } = query.cursor ? await decodeCursor(accountId, scope, query.cursor) : {};
  // Cursors from before contacts were listed hold a position in the list and no part.
  let index = parts.indexOf((startPart ?? 'list') as Part);
  if (index < 0) throw new ValidationError('VALIDATION_ERROR', 'cursor is not a cursor this list returned', 'cursor');
  let key: Record<string, string> | undefined = Object.keys(startKey).length > 0 ? startKey : undefined;
  const rows: SuppressionView[] = [];
  for (let queries = 0; queries < QUERIES_PER_PAGE && index < parts.length && rows.length < query.limit; queries++) {
    const part = parts[index]!;
    const options = { ...(prefix ? { prefix } : {}), limit: query.limit - rows.length, ...(key ? { startKey: key } : {}) };
    let lastKey: Record<string, string> | undefined;
    if (part === 'list') {
      const page = await querySuppressions(accountId, { ...options, ...(query.reason ? { reason: STORED_REASON[query.reason] } : {}) });
      rows.push(...page.suppressions.map(suppressionView));
      lastKey = page.lastKey;
    } else {
      const page = await contactsInStatus(accountId, part, options);
      rows.push(...page.contacts.map((contact) => contactView({ ...contact, status: part })));
      lastKey = page.lastKey;
    }
    key = lastKey;
    if (!lastKey) index++;
  }
  const nextCursor = index < parts.length ? await encodeCursor(accountId, scope, { ...(key ?? {}), part: parts[index]! }) : null;
  return { suppressions: rows, nextCursor };
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
 * Lifts every suppression of one address: its list entry, with its
 * `suppression.removed` event, and its contacts' own bounce or complaint (they
 * become `subscribed`, each with its `contact.updated` event). A complaint,
 * listed or a contact's, means the recipient called this mail spam: only an
 * admin (or a full key) lifts one, and only with `confirm=complaint`.
 */
export async function removeSuppression(principal: Principal, address: string, confirm: 'complaint' | undefined, now: Date): Promise<void> {
  assertMayChange(principal);
  const { accountId } = principal;
  const email = address.trim().toLowerCase();
  const valid = email.length > 0 && email.length <= MAX_EMAIL_LENGTH;
  const [record, memberships] = valid ? await Promise.all([getSuppressionRecord(accountId, email), findContactsByEmail(accountId, email)]) : [undefined, []];
  const contacts = memberships.filter((membership) => isBlocking(membership.status));
  if (!record && contacts.length === 0) throw notFound.suppression();
  const complaint = record?.reason === 'complained' || contacts.some((membership) => membership.status === 'complained');
  if (complaint) {
    if (principal.session && principal.session.role !== 'admin') throw new AuthError('FORBIDDEN', "Only the account's admins may lift a complaint");
    if (confirm !== 'complaint') throw complaintConfirmationRequired();
  }
  const reason: ApiSuppressionReason = complaint ? 'complaint' : record ? API_REASON[record.reason] : 'bounce';
  const changed = () => new ConflictError('CONFLICT', 'The suppression changed meanwhile; read it again and retry');
  try {
    await transactWrite([
      ...(record ? [suppressionDelete(accountId, record)] : []),
      ...auditWrite(
        accountId,
        'suppression.removed',
        { email, reason },
        actorOf(principal),
        `suppression:${email}:removed:${record?.createdAt ?? now.toISOString()}`,
        now.getTime(),
      ),
    ]);
  } catch (error) {
    if (error instanceof TransactionCancelled) throw changed();
    throw error;
  }
  // Each from the status it was read in: one that changed meanwhile (a complaint arrived after a bounce) stays, and says so.
  const after = await Promise.all(contacts.map((membership) => changeContactStatus(accountId, membership.contactId, [membership.status], 'subscribed', now)));
  if (after.some((contact) => contact.status !== 'subscribed')) throw changed();
}
