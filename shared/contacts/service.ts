import { isDeepStrictEqual } from 'node:util';
import * as v from 'valibot';
import { isId, newId } from '#shared/platform/ids.ts';
import { ConflictError, notFound } from '#shared/platform/errors.ts';
import { getAudienceCounters, listAllCounters, type AudienceCounters } from '#shared/audiences/service.ts';
import {
  getContact as readContact,
  getContactIdByEmail,
  insertContact,
  isFiltered,
  queryContacts,
  removeContact,
  replaceContacts,
  type ContactRecord,
  type CustomFieldValue,
} from './store.ts';
import { emailAddress, pagination, type ListPage } from '#shared/platform/schema/common.ts';
import {
  type contactListItemSchema,
  type contactSchema,
  storedCustomFields,
  type CreateContactInput,
  type ListContactsQuery,
  type UpdateContactInput,
} from './schema.ts';
import { parseInput } from '#shared/platform/schema/parse.ts';
import { DEFAULT_CONTACT_STATUS, type ContactStatus } from '#shared/audiences/contact-status.ts';
import type { TransactItems } from '#shared/platform/dynamodb/client.ts';
import { eventWrite } from '#shared/events/service.ts';
import { orNull, pick } from '#shared/platform/views.ts';
import { findById } from '#shared/platform/lookup.ts';

/** A contact as the API answers it: the reply schema's type, so the two cannot drift. */
export type Contact = v.InferOutput<typeof contactSchema>;

export type ContactListItem = v.InferOutput<typeof contactListItemSchema>;

export function toContact(record: ContactRecord): Contact {
  return {
    id: record.contactId,
    ...pick(record, 'email', 'audienceId', 'status', 'tags', 'customFields', 'createdAt', 'updatedAt', 'lastActivityAt'),
    ...orNull(record, 'firstName', 'lastName', 'phone'),
  };
}

function toListItem(record: ContactRecord): ContactListItem {
  const { id, email, firstName, lastName, status, audienceId, tags, createdAt } = toContact(record);
  return { id, email, firstName, lastName, status, audienceId, tags, createdAt };
}

/** A new contact record from validated create (or import) fields. */
export function newContactRecord(audienceId: string, input: Omit<CreateContactInput, 'audienceId'>, now: Date): ContactRecord {
  const at = now.toISOString();
  return {
    contactId: newId('con', now.getTime()),
    // The schema already normalises; callers inside the service may not have gone through it.
    email: input.email.trim().toLowerCase(),
    audienceId,
    ...(input.firstName ? { firstName: input.firstName } : {}),
    ...(input.lastName ? { lastName: input.lastName } : {}),
    ...(input.phone ? { phone: input.phone } : {}),
    status: input.status ?? DEFAULT_CONTACT_STATUS,
    tags: input.tags ?? [],
    customFields: input.customFields ?? {},
    createdAt: at,
    updatedAt: at,
    lastActivityAt: at,
    version: 1,
  };
}

/**
 * Applies an update to a record: given fields replace, `null` clears, custom
 * fields merge key by key (a `null` value removes the key) and the merged
 * result must meet the custom field limits (VALIDATION_ERROR otherwise). A
 * status change counts as activity.
 */
export function applyContactUpdate(record: ContactRecord, input: Omit<UpdateContactInput, 'email' | 'audienceId'>, now: Date): ContactRecord {
  const at = now.toISOString();
  const next: ContactRecord = { ...record, updatedAt: at, version: record.version + 1 };
  for (const field of ['firstName', 'lastName', 'phone'] as const) {
    const value = input[field];
    if (value === null || value === '') delete next[field];
    else if (value !== undefined) next[field] = value;
  }
  if (input.status !== undefined && input.status !== record.status) {
    next.status = input.status;
    next.lastActivityAt = at;
  }
  if (input.tags !== undefined) next.tags = input.tags;
  if (input.customFields !== undefined) {
    const merged: Record<string, CustomFieldValue> = { ...record.customFields };
    for (const [key, value] of Object.entries(input.customFields)) {
      if (value === null) delete merged[key];
      else merged[key] = value;
    }
    // Each update is within the limits on its own; repeated ones must not pile past them (nor past DynamoDB's 400 KB item).
    next.customFields = parseInput(storedCustomFields, merged, 'customFields');
  }
  return next;
}

/** Retries of a read-modify-write that lost to a concurrent writer before giving up with 409. */
const OPTIMISTIC_RETRIES = 5;

const concurrentChange = () => new ConflictError('CONFLICT', 'The contact changed concurrently; retry the request');

export type ContactEventType = 'contact.created' | 'contact.updated' | 'contact.deleted' | 'contact.unsubscribed';

/**
 * The event of a contact's change, for the change's own transaction: the
 * contact as it is afterwards (as it was, for a deletion), once per version.
 */
export function contactEvent(accountId: string, type: ContactEventType, record: ContactRecord, now: Date): TransactItems {
  const { id, ...contact } = toContact(record);
  const sourceKey = type === 'contact.deleted' ? `contact:${id}:deleted` : `contact:${id}:v${record.version}`;
  return eventWrite(accountId, { type, data: { contactId: id, ...contact }, sourceKey }, now.getTime());
}

/** Whether an update changed what the contact says (not only when it was written): an update to the same values is no event. */
function changedContent(before: ContactRecord, after: ContactRecord): boolean {
  const content = ({ updatedAt: _updatedAt, version: _version, lastActivityAt: _activity, ...rest }: ContactRecord) => rest;
  return !isDeepStrictEqual(content(before), content(after));
}

/** The event of rewriting `before` as `after`, for the rewrite's transaction: none when no value changed. */
export function contactChangeEvent(
  accountId: string,
  { before, after }: { before: ContactRecord; after: ContactRecord },
  now: Date,
  type: 'contact.updated' | 'contact.unsubscribed' = 'contact.updated',
): TransactItems {
  return changedContent(before, after) ? contactEvent(accountId, type, after, now) : [];
}

export async function createContact(accountId: string, input: CreateContactInput, now: Date): Promise<Contact> {
  const record = newContactRecord(input.audienceId, input, now);
  await insertContact(accountId, record, now, contactEvent(accountId, 'contact.created', record, now));
  return toContact(record);
}

async function findContact(accountId: string, contactId: string): Promise<ContactRecord> {
  const record = await findById('con', contactId, () => readContact(accountId, contactId), notFound.contact);
  return record;
}

export async function getContact(accountId: string, contactId: string): Promise<Contact> {
  return toContact(await findContact(accountId, contactId));
}

/** The contact with that address in the audience (compared as stored: trimmed, lower-cased). */
export async function getContactByEmail(accountId: string, email: string, audienceId: string): Promise<Contact> {
  const normalized = v.safeParse(emailAddress, email);
  const contactId = normalized.success ? await getContactIdByEmail(accountId, audienceId, normalized.output) : undefined;
  if (!contactId) throw notFound.contact();
  return getContact(accountId, contactId);
}

/**
 * Read-modify-write of one contact: `change` gets the stored record and returns
 * its next version, or undefined to leave it; the write holds only if nobody
 * wrote in between (retried otherwise), and moves the counters with the status.
 */
async function rewriteContact(
  accountId: string,
  contactId: string,
  now: Date,
  change: (before: ContactRecord) => ContactRecord | undefined,
  type: 'contact.updated' | 'contact.unsubscribed' = 'contact.updated',
): Promise<ContactRecord> {
  for (let attempt = 0; attempt < OPTIMISTIC_RETRIES; attempt++) {
    const before = await findContact(accountId, contactId);
    const after = change(before);
    if (!after) return before;
    const alongside = contactChangeEvent(accountId, { before, after }, now, type);
    const { stale } = await replaceContacts(accountId, before.audienceId, [{ before, after }], now, { alongside });
    if (stale.size === 0) return after;
  }
  throw concurrentChange();
}

export async function updateContact(accountId: string, contactId: string, input: UpdateContactInput, now: Date): Promise<Contact> {
  return toContact(await rewriteContact(accountId, contactId, now, (before) => applyContactUpdate(before, input, now)));
}

/**
 * Sets the status to `to` only if the stored status is one of `from`, checked
 * on the version that is written: the contact's own unsubscribe and preference
 * choices can then never overwrite a bounce or complaint recorded meanwhile.
 * Returns the contact as it is afterwards, changed or not.
 */
export async function changeContactStatus(
  accountId: string,
  contactId: string,
  from: readonly ContactStatus[],
  to: ContactStatus,
  now: Date,
  type: 'contact.updated' | 'contact.unsubscribed' = 'contact.updated',
): Promise<Contact> {
  return toContact(
    await rewriteContact(
      accountId,
      contactId,
      now,
      (before) => (from.includes(before.status) && before.status !== to ? applyContactUpdate(before, { status: to }, now) : undefined),
      type,
    ),
  );
}

/** Permanent; setting status `unsubscribed` is the reversible alternative. */
export async function deleteContact(accountId: string, contactId: string, now: Date): Promise<void> {
  for (let attempt = 0; attempt < OPTIMISTIC_RETRIES; attempt++) {
    const record = await findContact(accountId, contactId);
    if (await removeContact(accountId, record, now, contactEvent(accountId, 'contact.deleted', record, now))) return;
  }
  throw concurrentChange();
}

function totalFromCounters(counters: AudienceCounters[], status: ContactStatus | undefined): number {
  return counters.reduce((sum, counter) => sum + (status ? counter.byStatus[status] : counter.count), 0);
}

/**
 * Totals come from the maintained counters unless `tag` or `search` filter the
 * list; those are counted while reading, over at most FILTER_SCAN_LIMIT items.
 */
export async function listContacts(accountId: string, query: ListContactsQuery): Promise<ListPage<'contacts', ContactListItem>> {
  const { page, limit } = query;
  let counters: AudienceCounters[] = [];
  if (query.audienceId) {
    const counter = isId('aud', query.audienceId) ? await getAudienceCounters(accountId, query.audienceId) : undefined;
    if (!counter) throw notFound.audience();
    counters = [counter];
  }
  const filtered = isFiltered(query);
  const [found, allCounters] = await Promise.all([
    queryContacts(accountId, query, (page - 1) * limit, limit),
    filtered || query.audienceId ? Promise.resolve(counters) : listAllCounters(accountId),
  ]);
  const total = filtered ? found.matched : totalFromCounters(allCounters, query.status);
  return {
    contacts: found.contacts.map(toListItem),
    pagination: pagination(total, page, limit, found.truncated),
  };
}

/** What other areas build on from the store (its reads, and the parts their transactions write): through this service, never the store itself. */
export {
  type ContactFilter,
  type ContactRecord,
  contactsInStatus,
  contactsInStatusAfter,
  countContactsInStatus,
  type EmailMembership,
  FILTER_SCAN_LIMIT,
  findContactsByEmail,
  getContacts,
  recordContactActivity,
} from './store.ts';
