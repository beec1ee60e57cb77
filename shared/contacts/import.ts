import { notFound, PostlaneError, type ErrorCode } from '#shared/platform/errors.ts';
import { getAudienceRecord } from '#shared/audiences/service.ts';
import {
  findEmailClaims,
  getContacts,
  insertContactBatch,
  MAX_CONTACTS_PER_INSERT_BATCH,
  MAX_CONTACTS_PER_REPLACE_BATCH,
  replaceContacts,
  type ContactRecord,
} from './store.ts';
import { parseInput } from '#shared/platform/schema/parse.ts';
import { importedContact, type BulkImportInput, type ImportedContactInput, type importResultReply } from './schema.ts';
import type * as v from 'valibot';
import { applyContactUpdate, contactChangeEvent, contactEvent, newContactRecord } from './service.ts';
import { findById } from '#shared/platform/lookup.ts';

export type ImportResult = Omit<v.InferOutput<typeof importResultReply>, 'success'>;
export type ImportError = ImportResult['errors'][number] & { error: ErrorCode };

/** Rounds of re-reading contacts whose version moved under a concurrent writer. */
const STALE_RETRIES = 5;

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += size) out.push(items.slice(start, start + size));
  return out;
}

interface Entry {
  index: number;
  input: ImportedContactInput;
}

/**
 * Bulk import: invalid entries fail alone, repeats of an email after its first
 * entry are skipped, new emails are inserted 32 to a transaction and existing
 * ones updated (or skipped with `skipDuplicates`) 32 to a transaction, each
 * transaction carrying its audience counter change so counts stay exact, and
 * the event of each contact it creates or changes (`contact.created`,
 * `contact.updated`; an entry that changes no value records none), so a
 * retried or replayed import records no second event for the same change.
 * Reads are batched 100 keys at a time: 1,000 new contacts take about 43 round trips.
 * Every transaction also requires the audience to exist: once it is deleted
 * the import stops, and the entries not yet written fail with AUDIENCE_NOT_FOUND.
 */
export async function importContacts(accountId: string, request: BulkImportInput, now: Date): Promise<ImportResult> {
  await findById('aud', request.audienceId, () => getAudienceRecord(accountId, request.audienceId), notFound.audience);

  const result: ImportResult = { imported: 0, failed: 0, skipped: 0, errors: [] };
  const firstByEmail = new Map<string, Entry>();
  request.contacts.forEach((raw, index) => {
    try {
      const input = parseInput(importedContact, raw, `contacts[${index}]`);
      if (firstByEmail.has(input.email)) result.skipped++;
      else firstByEmail.set(input.email, { index, input });
    } catch (error) {
      if (!(error instanceof PostlaneError)) throw error;
      const given = typeof raw === 'object' && raw !== null && 'email' in raw ? (raw as { email: unknown }).email : null;
      // Echoed as sent when it is a plain value; an object or array (nested 20,000 deep, say) is not worth echoing, nor safe to serialise.
      const email = given === null || typeof given === 'object' ? null : given;
      result.failed++;
      result.errors.push({ index, email, error: error.code, message: error.message, ...error.details });
    }
  });

  const entries = [...firstByEmail.values()];
  const claims = await findEmailClaims(
    accountId,
    request.audienceId,
    entries.map((entry) => entry.input.email),
  );
  const existing = entries.filter((entry) => claims.has(entry.input.email));
  const fresh = entries.filter((entry) => !claims.has(entry.input.email));

  const batches = chunks(fresh, MAX_CONTACTS_PER_INSERT_BATCH);
  for (const [at, batch] of batches.entries()) {
    const records = batch.map((entry) => newContactRecord(request.audienceId, entry.input, now));
    let outcome: Awaited<ReturnType<typeof insertContactBatch>>;
    try {
      outcome = await insertContactBatch(accountId, request.audienceId, records, now, (record) => contactEvent(accountId, 'contact.created', record, now));
    } catch (error) {
      if (!isAudienceGone(error)) throw error;
      failAll([...batches.slice(at).flat(), ...existing], result);
      return finished(result);
    }
    result.imported += outcome.inserted.length;
    // Created by someone else since the claims were read: treat as duplicates.
    const lost = new Set(outcome.alreadyClaimed.map((record) => record.email));
    existing.push(...batch.filter((entry) => lost.has(entry.input.email)));
  }

  if (request.skipDuplicates) {
    result.skipped += existing.length;
  } else {
    result.imported += await updateExisting(accountId, request.audienceId, existing, claims, now, result);
  }
  return finished(result);
}

function finished(result: ImportResult): ImportResult {
  result.errors.sort((a, b) => a.index - b.index);
  return result;
}

function isAudienceGone(error: unknown): boolean {
  return error instanceof PostlaneError && error.code === 'AUDIENCE_NOT_FOUND';
}

/** The audience was deleted while the import ran: what was not written yet fails, nothing more joins it. */
function failAll(entries: Entry[], result: ImportResult): void {
  for (const entry of entries) {
    result.failed++;
    result.errors.push({
      index: entry.index,
      email: entry.input.email,
      error: 'AUDIENCE_NOT_FOUND',
      message: 'The audience was deleted during the import',
      field: `contacts[${entry.index}]`,
    });
  }
}

/** An entry that cannot be written: its error, with `field` inside the request (`contacts[3].customFields`). */
function failEntry(entry: Entry, error: PostlaneError, result: ImportResult): void {
  const field = error.details.field ? `contacts[${entry.index}].${error.details.field}` : `contacts[${entry.index}]`;
  result.failed++;
  result.errors.push({ index: entry.index, email: entry.input.email, error: error.code, message: error.message, field });
}

async function updateExisting(
  accountId: string,
  audienceId: string,
  entries: Entry[],
  knownClaims: Map<string, string>,
  now: Date,
  result: ImportResult,
): Promise<number> {
  let updated = 0;
  let pending = entries;
  for (let round = 0; round < STALE_RETRIES && pending.length > 0; round++) {
    // Claims found before the inserts cover the first round, except emails created meanwhile.
    const unknown = pending.filter((entry) => round > 0 || !knownClaims.has(entry.input.email));
    const claims =
      unknown.length === 0
        ? knownClaims
        : new Map([
            ...knownClaims,
            ...(await findEmailClaims(
              accountId,
              audienceId,
              unknown.map((entry) => entry.input.email),
            )),
          ]);
    const records = await getContacts(accountId, [...claims.values()]);
    const changes: { entry: Entry; before: ContactRecord; after: ContactRecord }[] = [];
    for (const entry of pending) {
      const before = records.get(claims.get(entry.input.email) ?? '');
      if (!before) {
        // Deleted since it was found: nothing to update; report rather than resurrect it.
        result.failed++;
        result.errors.push({
          index: entry.index,
          email: entry.input.email,
          error: 'CONFLICT',
          message: 'The contact was deleted during the import',
          field: `contacts[${entry.index}]`,
        });
        continue;
      }
      try {
        changes.push({ entry, before, after: applyContactUpdate(before, entry.input, now) });
      } catch (error) {
        // Merged with the stored custom fields, this entry would pass their limits.
        if (!(error instanceof PostlaneError)) throw error;
        failEntry(entry, error, result);
      }
    }
    const retry: Entry[] = [];
    const batches = chunks(changes, MAX_CONTACTS_PER_REPLACE_BATCH);
    for (const [at, batch] of batches.entries()) {
      let stale: Set<string>;
      try {
        ({ stale } = await replaceContacts(accountId, audienceId, batch, now, {
          audienceMustExist: true,
          alongside: batch.flatMap((change) => contactChangeEvent(accountId, change, now)),
        }));
      } catch (error) {
        if (!isAudienceGone(error)) throw error;
        failAll(
          [
            ...batches
              .slice(at)
              .flat()
              .map((change) => change.entry),
            ...retry,
          ],
          result,
        );
        return updated;
      }
      // A stale contact cancels its whole transaction: the batch is retried together.
      if (stale.size > 0) retry.push(...batch.map((change) => change.entry));
      else updated += batch.length;
    }
    pending = retry;
  }
  for (const entry of pending) {
    result.failed++;
    result.errors.push({
      index: entry.index,
      email: entry.input.email,
      error: 'CONFLICT',
      message: 'The contact kept changing during the import; retry it',
      field: `contacts[${entry.index}]`,
    });
  }
  return updated;
}
