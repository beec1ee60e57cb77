import { GetCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { batchGetAll, type WriteRequest } from '#shared/platform/dynamodb/batches.ts';
import {
  db,
  queryAll,
  queryPage,
  queryPages,
  tableName,
  transactWrite,
  TransactionCancelled,
  updateIf,
  type TransactItems,
  deleteAtVersion,
  putNew,
  getMapped,
  firstConditionFailed,
} from '#shared/platform/dynamodb/client.ts';
import { audienceExistsCheck, counterUpdate, type CounterDelta } from '#shared/audiences/service.ts';
import { accountScoped } from '#shared/platform/dynamodb/partition.ts';
import type { ContactStatus } from '#shared/audiences/contact-status.ts';
import { ConflictError, notFound } from '#shared/platform/errors.ts';
import { optionalStrings, strings } from '#shared/platform/dynamodb/attributes.ts';

export type CustomFieldValue = string | number | boolean;

export interface ContactRecord {
  contactId: string;
  /** Trimmed and lower-cased; unique within the audience. */
  email: string;
  audienceId: string;
  firstName?: string;
  lastName?: string;
  phone?: string;
  status: ContactStatus;
  tags: string[];
  customFields: Record<string, CustomFieldValue>;
  createdAt: string;
  updatedAt: string;
  lastActivityAt: string;
  /** Optimistic lock: every write requires the version it read. */
  version: number;
}

/** Base item: the account's contacts, newest last by id. */
export const contactKey = (accountId: string, contactId: string) => ({ pk: accountScoped(accountId, 'CON'), sk: contactId });
/**
 * The claim that makes an email unique within an audience (creates fail on it,
 * concurrently too). Keyed by email first, so one query finds the address in
 * every audience of the account, with its status, for suppression and unsubscribe.
 */
const emailClaimKey = (accountId: string, email: string, audienceId: string) => ({ pk: accountScoped(accountId, 'EMAIL', email), sk: audienceId });

/** gsi1: by audience; gsi2: by audience and status; gsi3: by status across the account. */
function indexKeys(accountId: string, contact: Pick<ContactRecord, 'audienceId' | 'status' | 'contactId'>) {
  return {
    gsi1pk: accountScoped(accountId, 'AUD', contact.audienceId),
    gsi1sk: contact.contactId,
    gsi2pk: accountScoped(accountId, 'AUD', contact.audienceId, 'S', contact.status),
    gsi2sk: contact.contactId,
    gsi3pk: accountScoped(accountId, 'S', contact.status),
    gsi3sk: contact.contactId,
  };
}

/** Lower-cased email and names, so `search` is a case-insensitive `contains` in the query filter. */
function searchText(contact: Pick<ContactRecord, 'email' | 'firstName' | 'lastName'>): string {
  return [contact.email, contact.firstName ?? '', contact.lastName ?? ''].join('\n').toLowerCase();
}

function toItem(accountId: string, contact: ContactRecord): Record<string, unknown> {
  return { ...contactKey(accountId, contact.contactId), ...indexKeys(accountId, contact), entity: 'contact', ...contact, searchText: searchText(contact) };
}

function toContact(item: Record<string, unknown>): ContactRecord {
  return {
    ...strings(item, 'contactId', 'email', 'audienceId', 'createdAt', 'updatedAt'),
    ...optionalStrings(item, 'firstName', 'lastName', 'phone'),
    status: item.status as ContactStatus,
    tags: (item.tags ?? []) as string[],
    customFields: (item.customFields ?? {}) as Record<string, CustomFieldValue>,
    lastActivityAt: (item.lastActivityAt ?? item.updatedAt) as string,
    version: Number(item.version ?? 0),
  };
}

/** Counter change of adding (+1) or removing (-1) a contact in a status. */
export function presenceDelta(status: ContactStatus, sign: 1 | -1): CounterDelta {
  return { count: sign, byStatus: { [status]: sign } };
}

/** Counter change of moving a contact between statuses; empty when it stays. */
export function statusChangeDelta(from: ContactStatus, to: ContactStatus): CounterDelta {
  return from === to ? { count: 0, byStatus: {} } : { count: 0, byStatus: { [from]: -1, [to]: 1 } };
}

/** Sums deltas, for one counter write per transaction however many contacts it holds. */
export function sumDeltas(deltas: CounterDelta[]): CounterDelta {
  const total: CounterDelta = { count: 0, byStatus: {} };
  for (const delta of deltas) {
    total.count += delta.count;
    for (const [status, change] of Object.entries(delta.byStatus) as [ContactStatus, number][]) {
      total.byStatus[status] = (total.byStatus[status] ?? 0) + change;
    }
  }
  return total;
}

function insertItems(accountId: string, contact: ContactRecord): TransactItems {
  return [
    putNew(toItem(accountId, contact)),
    putNew({
      ...emailClaimKey(accountId, contact.email, contact.audienceId),
      entity: 'contactEmail',
      contactId: contact.contactId,
      audienceId: contact.audienceId,
      status: contact.status,
    }),
  ];
}

/**
 * Plain puts of a new contact and its claim, for loading a fresh audience with
 * BatchWriteItem (the benchmark's 100,000 contacts) where a transaction per 49
 * would take minutes. Unconditional: the caller guarantees unique emails and
 * applies the counter change itself (`counterUpdate` of the summed `presenceDelta`s).
 */
export function newContactPuts(accountId: string, contact: ContactRecord): WriteRequest[] {
  return insertItems(accountId, contact).map((item) => ({ PutRequest: { Item: item.Put!.Item } }));
}

/** The writes that replace one contact: the item (on its version) and, when the status moves, its claim's copy of it. */
function replaceItems(accountId: string, before: ContactRecord, after: ContactRecord): TransactItems {
  const items: TransactItems = [
    {
      Put: {
        TableName: tableName,
        Item: toItem(accountId, after),
        ConditionExpression: 'version = :expected',
        ExpressionAttributeValues: { ':expected': before.version },
      },
    },
  ];
  if (before.status !== after.status) {
    items.push({
      Update: {
        TableName: tableName,
        Key: emailClaimKey(accountId, after.email, after.audienceId),
        UpdateExpression: 'SET #status = :status',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':status': after.status },
      },
    });
  }
  return items;
}

/**
 * Stores a new contact, its email claim, the audience counters and the
 * `alongside` items (its event) in one transaction: the claim's condition makes the email unique even under racing
 * creates, and the counters can never drift from the contacts.
 */
export async function insertContact(accountId: string, contact: ContactRecord, now: Date, alongside: TransactItems = []): Promise<void> {
  try {
    await transactWrite([
      ...insertItems(accountId, contact),
      audienceExistsCheck(accountId, contact.audienceId),
      counterUpdate(accountId, contact.audienceId, presenceDelta(contact.status, 1), now),
      ...alongside,
    ]);
  } catch (error) {
    if (!(error instanceof TransactionCancelled)) throw error;
    if (error.reasons[1] === 'ConditionalCheckFailed') {
      throw new ConflictError('CONTACT_EXISTS', 'A contact with this email already exists in this audience', { field: 'email' });
    }
    if (error.reasons[2] === 'ConditionalCheckFailed') throw notFound.audience();
    throw error;
  }
}

/** Outcome of a batch of new contacts: which emails turned out to be claimed meanwhile. */
export interface BatchInsertResult {
  inserted: ContactRecord[];
  alreadyClaimed: ContactRecord[];
}

/**
 * Inserts up to 32 new contacts of one audience in one transaction (three
 * items each: contact, claim and the `alongside` item of each, its event; one
 * counter write and the audience's existence check: DynamoDB allows 100). A
 * claim taken meanwhile cancels the transaction; those contacts are set aside
 * and the rest retried. An audience deleted meanwhile (its counters outlive
 * it, so their condition does not see it) throws AUDIENCE_NOT_FOUND.
 */
export async function insertContactBatch(
  accountId: string,
  audienceId: string,
  contacts: ContactRecord[],
  now: Date,
  alongside: (contact: ContactRecord) => TransactItems = () => [],
): Promise<BatchInsertResult> {
  let pending = contacts;
  const alreadyClaimed: ContactRecord[] = [];
  while (pending.length > 0) {
    try {
      // The alongside items go last, so each contact's claim keeps its place among the cancellation reasons.
      await transactWrite([
        ...pending.flatMap((contact) => insertItems(accountId, contact)),
        counterUpdate(accountId, audienceId, sumDeltas(pending.map((contact) => presenceDelta(contact.status, 1))), now),
        audienceExistsCheck(accountId, audienceId),
        ...pending.flatMap(alongside),
      ]);
      return { inserted: pending, alreadyClaimed };
    } catch (error) {
      if (!(error instanceof TransactionCancelled)) throw error;
      if (error.reasons[pending.length * 2 + 1] === 'ConditionalCheckFailed') throw notFound.audience();
      const claimed = new Set(pending.filter((_, index) => error.reasons[index * 2 + 1] === 'ConditionalCheckFailed'));
      if (claimed.size === 0) throw error;
      alreadyClaimed.push(...claimed);
      pending = pending.filter((contact) => !claimed.has(contact));
    }
  }
  return { inserted: [], alreadyClaimed };
}

/**
 * Three items each at most (contact, claim or the claim's status, the event)
 * plus the counter write and the audience check: 98 of DynamoDB's 100.
 */
export const MAX_CONTACTS_PER_INSERT_BATCH = 32;
export const MAX_CONTACTS_PER_REPLACE_BATCH = 32;

/**
 * Writes new versions of existing contacts of one audience (each carrying the
 * version it was read at) and their counter change in one transaction. Returns
 * the ids whose version moved meanwhile; nothing is written then.
 * `audienceMustExist` (an import): an audience deleted meanwhile throws
 * AUDIENCE_NOT_FOUND and nothing is written; a single contact's update works
 * after its audience is gone, as its contacts stay.
 */
export async function replaceContacts(
  accountId: string,
  audienceId: string,
  changes: { before: ContactRecord; after: ContactRecord }[],
  now: Date,
  { audienceMustExist = false, alongside = [] as TransactItems } = {},
): Promise<{ stale: Set<string> }> {
  const delta = sumDeltas(changes.map(({ before, after }) => statusChangeDelta(before.status, after.status)));
  const items: TransactItems = [];
  /** Index of each change's versioned put among the items, to read its cancellation reason. */
  const putIndex: number[] = [];
  for (const { before, after } of changes) {
    putIndex.push(items.length);
    items.push(...replaceItems(accountId, before, after));
  }
  if (delta.count !== 0 || Object.values(delta.byStatus).some(Boolean)) items.push(counterUpdate(accountId, audienceId, delta, now));
  const checkIndex = audienceMustExist ? items.push(audienceExistsCheck(accountId, audienceId)) - 1 : -1;
  try {
    await transactWrite([...items, ...alongside]);
    return { stale: new Set() };
  } catch (error) {
    if (!(error instanceof TransactionCancelled)) throw error;
    if (error.reasons[checkIndex] === 'ConditionalCheckFailed') throw notFound.audience();
    const stale = new Set(changes.filter((_, index) => error.reasons[putIndex[index]!] === 'ConditionalCheckFailed').map(({ before }) => before.contactId));
    if (stale.size === 0) throw error;
    return { stale };
  }
}

/** Removes the contact, its email claim and its share of the counters, with the `alongside` items (its event); false when its version moved meanwhile. */
export async function removeContact(accountId: string, contact: ContactRecord, now: Date, alongside: TransactItems = []): Promise<boolean> {
  try {
    await transactWrite([
      deleteAtVersion(contactKey(accountId, contact.contactId), contact.version),
      { Delete: { TableName: tableName, Key: emailClaimKey(accountId, contact.email, contact.audienceId) } },
      counterUpdate(accountId, contact.audienceId, presenceDelta(contact.status, -1), now),
      ...alongside,
    ]);
    return true;
  } catch (error) {
    if (firstConditionFailed(error)) return false;
    throw error;
  }
}

export async function getContact(accountId: string, contactId: string): Promise<ContactRecord | undefined> {
  return getMapped(contactKey(accountId, contactId), toContact);
}

/** Contacts by id, 100 keys per BatchGetItem (its limit), retrying keys DynamoDB leaves unprocessed. */
export async function getContacts(accountId: string, contactIds: string[]): Promise<Map<string, ContactRecord>> {
  return new Map((await batchGetAll(contactIds.map((id) => contactKey(accountId, id)))).map((item) => [item.contactId as string, toContact(item)]));
}

/** The contact id holding each email in the audience, for the emails that are taken. */
export async function findEmailClaims(accountId: string, audienceId: string, emails: string[]): Promise<Map<string, string>> {
  const items = await batchGetAll(emails.map((email) => emailClaimKey(accountId, email, audienceId)));
  return new Map(items.map((item) => [(item.pk as string).slice(accountScoped(accountId, 'EMAIL', '').length), item.contactId as string]));
}

export async function getContactIdByEmail(accountId: string, audienceId: string, email: string): Promise<string | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: emailClaimKey(accountId, email, audienceId), ConsistentRead: true }));
  return Item?.contactId as string | undefined;
}

export interface EmailMembership {
  audienceId: string;
  contactId: string;
  status: ContactStatus;
}

/** Every audience of the account holding this (normalised) address, with the contact's status: one query. */
export async function findContactsByEmail(accountId: string, email: string): Promise<EmailMembership[]> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': emailClaimKey(accountId, email, '').pk },
    ConsistentRead: true,
  });
  return items.map((item) => ({ audienceId: item.sk as string, contactId: item.contactId as string, status: item.status as ContactStatus }));
}

/**
 * Moves the contact's last activity to `at` (mail delivered to it), unless it
 * is gone or already later: a redelivered or out-of-order event never moves it back.
 * A new version too, so an update that read the contact before cannot write
 * the older value back over it (it retries on the conflict instead).
 */
export async function recordContactActivity(accountId: string, contactId: string, at: string): Promise<void> {
  await updateIf({
    Key: contactKey(accountId, contactId),
    UpdateExpression: 'SET lastActivityAt = :at, version = if_not_exists(version, :zero) + :one',
    ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(lastActivityAt) OR lastActivityAt < :at)',
    ExpressionAttributeValues: { ':at': at, ':zero': 0, ':one': 1 },
  });
}

export interface ContactQuery {
  audienceId?: string;
  status?: ContactStatus;
  tag?: string;
  search?: string;
}

/** Most items a filtered (tag, search) list examines; past it the total is a lower bound. */
export const FILTER_SCAN_LIMIT = 10_000;

function queryInput(accountId: string, query: ContactQuery): QueryCommandInput {
  const base = (indexName: string | undefined, keyName: string, value: string): QueryCommandInput => ({
    TableName: tableName,
    ...(indexName ? { IndexName: indexName } : {}),
    KeyConditionExpression: '#key = :key',
    ExpressionAttributeNames: { '#key': keyName },
    ExpressionAttributeValues: { ':key': value },
    ScanIndexForward: false,
  });
  let input: QueryCommandInput;
  if (query.audienceId && query.status) input = base('gsi2', 'gsi2pk', accountScoped(accountId, 'AUD', query.audienceId, 'S', query.status));
  else if (query.audienceId) input = base('gsi1', 'gsi1pk', accountScoped(accountId, 'AUD', query.audienceId));
  else if (query.status) input = base('gsi3', 'gsi3pk', accountScoped(accountId, 'S', query.status));
  else input = base(undefined, 'pk', contactKey(accountId, '').pk);

  const filters: string[] = [];
  if (query.tag !== undefined) {
    filters.push('contains(tags, :tag)');
    input.ExpressionAttributeValues![':tag'] = query.tag;
  }
  if (query.search !== undefined) {
    filters.push('contains(searchText, :search)');
    input.ExpressionAttributeValues![':search'] = query.search.toLowerCase();
  }
  if (filters.length) input.FilterExpression = filters.join(' AND ');
  return input;
}

export function isFiltered(query: ContactQuery): boolean {
  return query.tag !== undefined || query.search !== undefined;
}

/**
 * Newest first. Unfiltered: reads only up to `offset + limit` items of the
 * narrowest index. Filtered (tag, search): examines the range up to
 * FILTER_SCAN_LIMIT items to count every match, and says when it stopped early.
 */
export async function queryContacts(
  accountId: string,
  query: ContactQuery,
  offset: number,
  limit: number,
  scanLimit = FILTER_SCAN_LIMIT,
): Promise<{ contacts: ContactRecord[]; matched: number; truncated: boolean }> {
  const { items, matched, truncated } = await queryPage(queryInput(accountId, query), offset, limit, scanLimit);
  return { contacts: items.map(toContact), matched, truncated };
}

/**
 * Up to `limit` contacts of an audience in one status, oldest first, after
 * the contact id `after`: a walk that can stop and pick up again from the
 * last id it saw (the broadcast planner's). `next` is that id, absent at the end.
 */
export async function contactsInStatusAfter(
  accountId: string,
  audienceId: string,
  status: ContactStatus,
  after: string | undefined,
  limit: number,
): Promise<{ contacts: ContactRecord[]; next?: string }> {
  const page = await db.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: 'gsi2',
      KeyConditionExpression: after === undefined ? 'gsi2pk = :key' : 'gsi2pk = :key AND gsi2sk > :after',
      ExpressionAttributeValues: { ':key': accountScoped(accountId, 'AUD', audienceId, 'S', status), ...(after === undefined ? {} : { ':after': after }) },
      Limit: limit,
    }),
  );
  const contacts = (page.Items ?? []).map(toContact);
  return { contacts, ...(page.LastEvaluatedKey ? { next: contacts.at(-1)?.contactId ?? (page.LastEvaluatedKey.gsi2sk as string) } : {}) };
}

/**
 * One page of the account's contacts in `status`, in every audience, oldest
 * first from `startKey`: the status's own index (gsi3), so no other status is
 * read; `prefix`, the start of the address, filters within it (a page may then
 * hold fewer than `limit` and still have a `lastKey`). The suppression list's
 * second part: contacts whose own bounce or complaint stops sends.
 */
export async function contactsInStatus(
  accountId: string,
  status: ContactStatus,
  options: { prefix?: string; limit: number; startKey?: Record<string, string> },
): Promise<{ contacts: ContactRecord[]; lastKey?: Record<string, string> }> {
  const page = await db.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: 'gsi3',
      KeyConditionExpression: 'gsi3pk = :key',
      ...(options.prefix ? { FilterExpression: 'begins_with(email, :prefix)' } : {}),
      ExpressionAttributeValues: { ':key': accountScoped(accountId, 'S', status), ...(options.prefix ? { ':prefix': options.prefix } : {}) },
      Limit: options.limit,
      ExclusiveStartKey: options.startKey,
    }),
  );
  return { contacts: (page.Items ?? []).map(toContact), lastKey: page.LastEvaluatedKey as Record<string, string> | undefined };
}

/** What a count filters contacts by: every one of `tags`, at least one of `anyTags`, each custom field equal (of the same type). */
export interface ContactFilter {
  tags?: readonly string[];
  anyTags?: readonly string[];
  customFields?: Readonly<Record<string, CustomFieldValue>>;
}

/**
 * How many contacts of an audience in one status match `filter`, examining
 * at most `examineLimit` of them (the status's own index, so a count never
 * reads another audience or status, and `Select: COUNT` returns no items).
 * `examined` is how many were read; `complete` whether that was all of them.
 */
export async function countContactsInStatus(
  accountId: string,
  audienceId: string,
  status: ContactStatus,
  filter: ContactFilter,
  examineLimit: number,
): Promise<{ matched: number; examined: number; complete: boolean }> {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':key': accountScoped(accountId, 'AUD', audienceId, 'S', status) };
  const conditions: string[] = [];
  (filter.tags ?? []).forEach((tag, index) => {
    values[`:all${index}`] = tag;
    conditions.push(`contains(tags, :all${index})`);
  });
  const any = (filter.anyTags ?? []).map((tag, index) => {
    values[`:any${index}`] = tag;
    return `contains(tags, :any${index})`;
  });
  if (any.length) conditions.push(`(${any.join(' OR ')})`);
  if (Object.keys(filter.customFields ?? {}).length) names['#fields'] = 'customFields';
  Object.entries(filter.customFields ?? {}).forEach(([field, value], index) => {
    names[`#f${index}`] = field;
    values[`:f${index}`] = value;
    conditions.push(`#fields.#f${index} = :f${index}`);
  });
  let matched = 0;
  let examined = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: 'gsi2',
        KeyConditionExpression: 'gsi2pk = :key',
        ...(conditions.length ? { FilterExpression: conditions.join(' AND ') } : {}),
        ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
        ExpressionAttributeValues: values,
        Select: 'COUNT',
        Limit: examineLimit - examined,
        ExclusiveStartKey: startKey,
      }),
    );
    matched += page.Count ?? 0;
    examined += page.ScannedCount ?? 0;
    startKey = page.LastEvaluatedKey;
  } while (startKey && examined < examineLimit);
  return { matched, examined, complete: startKey === undefined };
}

/**
 * Every contact of an audience, oldest first, a page (DynamoDB's 1 MB) at a time: one Query
 * of the audience's partition of gsi1, never a scan of the account. Only what
 * an export writes is read back.
 */
/** A range of an audience's contact ids, bounds included; an open end reaches the partition's end. */
export interface ContactIdRange {
  from?: string;
  to?: string;
}

function rangeCondition(range: ContactIdRange): { condition: string; values: Record<string, string> } {
  if (range.from !== undefined && range.to !== undefined)
    return { condition: ' AND gsi1sk BETWEEN :from AND :to', values: { ':from': range.from, ':to': range.to } };
  if (range.from !== undefined) return { condition: ' AND gsi1sk >= :from', values: { ':from': range.from } };
  if (range.to !== undefined) return { condition: ' AND gsi1sk <= :to', values: { ':to': range.to } };
  return { condition: '', values: {} };
}

/**
 * The audience's contacts (or those of one id range), oldest first, a Query
 * page at a time: DynamoDB's 1 MB pages, or `pageItems` contacts when fewer.
 */
export async function* audienceContactPages(
  accountId: string,
  audienceId: string,
  range: ContactIdRange = {},
  pageItems?: number,
): AsyncGenerator<ContactRecord[]> {
  const fields = ['contactId', 'email', 'audienceId', 'firstName', 'lastName', 'phone', 'status', 'tags', 'customFields', 'createdAt', 'updatedAt'];
  const { condition, values } = rangeCondition(range);
  for await (const items of queryPages({
    IndexName: 'gsi1',
    KeyConditionExpression: `gsi1pk = :key${condition}`,
    ExpressionAttributeValues: { ':key': accountScoped(accountId, 'AUD', audienceId), ...values },
    ProjectionExpression: fields.map((_, index) => `#f${index}`).join(', '),
    ExpressionAttributeNames: Object.fromEntries(fields.map((field, index) => [`#f${index}`, field])),
    ...(pageItems === undefined ? {} : { Limit: pageItems }),
  })) {
    yield items.map(toContact);
  }
}

/** The ids of the audience's oldest and newest contacts (two one-item Queries), or undefined for an empty audience. */
export async function audienceContactSpan(accountId: string, audienceId: string): Promise<{ first: string; last: string } | undefined> {
  const end = async (forward: boolean) => {
    const { Items = [] } = await db.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :key',
        ExpressionAttributeValues: { ':key': accountScoped(accountId, 'AUD', audienceId) },
        ProjectionExpression: 'gsi1sk',
        ScanIndexForward: forward,
        Limit: 1,
      }),
    );
    return Items[0]?.gsi1sk as string | undefined;
  };
  const [first, last] = await Promise.all([end(true), end(false)]);
  return first === undefined || last === undefined ? undefined : { first, last };
}
