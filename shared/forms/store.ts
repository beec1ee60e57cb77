import { createHash } from 'node:crypto';
import { GetCommand, PutCommand, QueryCommand, type QueryCommandInput, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';
import { batchWriteAll } from '#shared/platform/dynamodb/batches.ts';
import {
  db,
  isConditionFailure,
  queryPage,
  tableName,
  transactWrite,
  TransactionCancelled,
  type TransactItems,
  deleteAtVersion,
  queryPages,
  updateReturning,
  putNew,
  getMapped,
  firstConditionFailed,
} from '#shared/platform/dynamodb/client.ts';
import { accountKey } from '#shared/platform/dynamodb/account-item.ts';
import { accountScoped } from '#shared/platform/dynamodb/partition.ts';
import { ConflictError, notFound } from '#shared/platform/errors.ts';
import type { FieldType } from './schema.ts';
import { optionalStrings, strings } from '#shared/platform/dynamodb/attributes.ts';
import type { KeyEnvironment } from '#shared/accounts/service.ts';

export interface FormFieldRecord {
  id: string;
  type: FieldType;
  label: string;
  placeholder?: string;
  required: boolean;
  options?: string[];
}

export interface FormSettings {
  successMessage: string;
  notifyEmail?: string;
  enableCaptcha: boolean;
  storeResponses: boolean;
  doubleOptIn: boolean;
  /** Sender of the notification and confirmation emails. */
  from?: string;
}

export interface FormAppearance {
  backgroundColor: string;
  primaryColor: string;
  fontFamily: string;
}

export interface ButtonCustomization {
  text: string;
  variant: string;
}

export interface FormRecord {
  formId: string;
  title: string;
  description?: string;
  slug: string;
  published: boolean;
  fields: FormFieldRecord[];
  settings: FormSettings;
  audienceId?: string;
  appearance: FormAppearance;
  buttonCustomization: ButtonCustomization;
  createdAt: string;
  updatedAt: string;
  /**
   * The environment of the key that last created or changed the form: its
   * notification and confirmation emails go out as that key's sends would
   * (a test key's are recorded as test messages, never reach SES, use no
   * quota). Items written before it was kept read as `live`, as they sent.
   */
  env: KeyEnvironment;
  /** Optimistic lock of the configuration; the counters move without it. */
  version: number;
}

/** Kept on the form item, each moved by one atomic ADD, so they are exact under any concurrency and one read away. */
export interface FormCounters {
  views: number;
  submissions: number;
  /** Submissions whose data was stored (`storeResponses`); the total of the submissions list. */
  storedSubmissions: number;
}

export interface StoredForm {
  form: FormRecord;
  counters: FormCounters;
}

export interface SubmissionRecord {
  submissionId: string;
  formId: string;
  data: Record<string, unknown>;
  createdAt: string;
}

/** Where a public path (`/f/<slug>`, a submit by id or slug) leads. */
export interface FormRoute {
  accountId: string;
  formId: string;
}

/** The account's forms, newest last by id. gsi1 splits them by `published` for the list filter. */
const formKey = (accountId: string, formId: string) => ({ pk: accountScoped(accountId, 'FRM'), sk: formId });
const publishedIndexKey = (accountId: string, form: Pick<FormRecord, 'formId' | 'published'>) => ({
  gsi1pk: accountScoped(accountId, 'FRM', 'PUB', String(form.published)),
  gsi1sk: form.formId,
});
/**
 * The deployment's public form paths: one item per slug (which makes slugs
 * unique across the deployment, as `/f/<slug>` names no account) and one per
 * form id (the public submit path takes either, without a key). They are the
 * only items whose key does not start with an account id; they hold nothing
 * but the way to the form, and every public read then checks `published`.
 * Slugs (lower-case, hyphens) and ids (`frm_…`) can never be equal.
 */
const routeKey = (slugOrId: string) => ({ pk: `FORMROUTE#${slugOrId}`, sk: 'ROUTE' });
/** Submissions of one form, by time: the sort key starts with `createdAt`, so a date range is a key condition. */
const submissionPartition = (accountId: string, formId: string) => accountScoped(accountId, 'SUB', formId);
const submissionKey = (accountId: string, submission: Pick<SubmissionRecord, 'formId' | 'createdAt' | 'submissionId'>) => ({
  pk: submissionPartition(accountId, submission.formId),
  sk: `${submission.createdAt}#${submission.submissionId}`,
});
/**
 * One item per form and address while a double opt-in email to it is recent;
 * the address only as a truncated SHA-256 (these items are not a log of who
 * signed up). It expires with its window (TTL deletes late; the claim's
 * condition reads the time itself).
 */
const confirmationClaimKey = (accountId: string, formId: string, email: string) => ({
  pk: accountScoped(accountId, 'FORMCONFIRM', formId, createHash('sha256').update(email.trim().toLowerCase()).digest('base64url').slice(0, 22)),
  sk: 'FORMCONFIRM',
});

/** Counters of the account's forms on the account item, so a list's total is one read. */
const FORM_COUNT = 'formCount';
const PUBLISHED_FORM_COUNT = 'publishedFormCount';

function toForm(item: Record<string, unknown>): FormRecord {
  return {
    ...strings(item, 'formId', 'title', 'slug', 'createdAt', 'updatedAt'),
    ...optionalStrings(item, 'description', 'audienceId'),
    published: item.published === true,
    fields: item.fields as FormFieldRecord[],
    settings: item.settings as FormSettings,
    appearance: item.appearance as FormAppearance,
    buttonCustomization: item.buttonCustomization as ButtonCustomization,
    env: item.env === 'test' ? 'test' : 'live',
    version: Number(item.version ?? 0),
  };
}

function toStored(item: Record<string, unknown>): StoredForm {
  return {
    form: toForm(item),
    counters: { views: Number(item.views ?? 0), submissions: Number(item.submissions ?? 0), storedSubmissions: Number(item.storedSubmissions ?? 0) },
  };
}

function toSubmission(item: Record<string, unknown>): SubmissionRecord {
  return {
    ...strings(item, 'submissionId', 'formId', 'createdAt'),
    data: (item.data ?? {}) as Record<string, unknown>,
  };
}

const slugTaken = () => new ConflictError('SLUG_TAKEN', 'This slug is already used by another form', { field: 'slug' });

function routeWrite(slugOrId: string, route: FormRoute): TransactItems[number] {
  return putNew({ ...routeKey(slugOrId), entity: 'formRoute', ...route });
}

/** Removes a route only while it still leads to this form: a released slug may already belong to another. */
function routeRemoval(slugOrId: string, route: FormRoute): TransactItems[number] {
  return {
    Delete: {
      TableName: tableName,
      Key: routeKey(slugOrId),
      ConditionExpression: 'accountId = :accountId AND formId = :formId',
      ExpressionAttributeValues: { ':accountId': route.accountId, ':formId': route.formId },
    },
  };
}

function countersUpdate(accountId: string, forms: number, published: number): TransactItems[number] {
  return {
    Update: {
      TableName: tableName,
      Key: accountKey(accountId),
      UpdateExpression: 'ADD #forms :forms, #published :published',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#forms': FORM_COUNT, '#published': PUBLISHED_FORM_COUNT },
      ExpressionAttributeValues: { ':forms': forms, ':published': published },
    },
  };
}

/**
 * Stores a new form with its slug and id routes and the account's form
 * counters in one transaction; SLUG_TAKEN when the slug is in use (racing
 * creates included: the route's condition decides).
 */
export async function insertForm(accountId: string, form: FormRecord): Promise<void> {
  const route = { accountId, formId: form.formId };
  try {
    await transactWrite([
      putNew({
        ...formKey(accountId, form.formId),
        ...publishedIndexKey(accountId, form),
        entity: 'form',
        ...form,
        views: 0,
        submissions: 0,
        storedSubmissions: 0,
      }),
      routeWrite(form.slug, route),
      routeWrite(form.formId, route),
      countersUpdate(accountId, 1, form.published ? 1 : 0),
    ]);
  } catch (error) {
    if (error instanceof TransactionCancelled && error.reasons[1] === 'ConditionalCheckFailed') throw slugTaken();
    throw error;
  }
}

export async function getForm(accountId: string, formId: string): Promise<StoredForm | undefined> {
  return getMapped(formKey(accountId, formId), toStored);
}

/** The form a public slug or id leads to, whatever its state; the caller checks `published`. */
export async function findFormRoute(slugOrId: string): Promise<FormRoute | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: routeKey(slugOrId), ConsistentRead: true }));
  return Item ? { accountId: Item.accountId as string, formId: Item.formId as string } : undefined;
}

/**
 * Writes a new configuration read at `before.version` (views and submissions
 * keep counting meanwhile: they are not part of it). A changed slug takes the
 * new route and releases the old one in the same transaction. Returns false
 * when the form changed or went meanwhile; throws SLUG_TAKEN.
 */
export async function replaceForm(accountId: string, before: FormRecord, after: FormRecord): Promise<boolean> {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':expected': before.version };
  const sets: string[] = [];
  const removes: string[] = [];
  const configuration = { ...after, ...publishedIndexKey(accountId, after) } as Record<string, unknown>;
  for (const name of [
    'title',
    'description',
    'slug',
    'published',
    'fields',
    'settings',
    'audienceId',
    'appearance',
    'buttonCustomization',
    'updatedAt',
    'env',
    'version',
    'gsi1pk',
  ] as const) {
    names[`#${name}`] = name;
    if (configuration[name] === undefined) {
      removes.push(`#${name}`);
    } else {
      sets.push(`#${name} = :${name}`);
      values[`:${name}`] = configuration[name];
    }
  }
  const route = { accountId, formId: before.formId };
  const items: TransactItems = [
    {
      Update: {
        TableName: tableName,
        Key: formKey(accountId, before.formId),
        UpdateExpression: `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
        ConditionExpression: 'version = :expected',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    },
  ];
  const newRoute = after.slug === before.slug ? -1 : items.push(routeWrite(after.slug, route), routeRemoval(before.slug, route)) - 2;
  if (after.published !== before.published) items.push(countersUpdate(accountId, 0, after.published ? 1 : -1));
  try {
    await transactWrite(items);
    return true;
  } catch (error) {
    if (!(error instanceof TransactionCancelled)) throw error;
    if (error.reasons[0] === 'ConditionalCheckFailed') return false;
    if (error.reasons[newRoute] === 'ConditionalCheckFailed') throw slugTaken();
    throw error;
  }
}

/**
 * Removes the form, its routes and its share of the counters in one
 * transaction (on the version read, so a concurrent change is not lost
 * silently), then its submissions. Returns false when the form changed meanwhile.
 */
export async function removeForm(accountId: string, form: FormRecord): Promise<boolean> {
  const route = { accountId, formId: form.formId };
  try {
    await transactWrite([
      deleteAtVersion(formKey(accountId, form.formId), form.version),
      routeRemoval(form.slug, route),
      routeRemoval(form.formId, route),
      countersUpdate(accountId, -1, form.published ? -1 : 0),
    ]);
  } catch (error) {
    if (firstConditionFailed(error)) return false;
    throw error;
  }
  await removeSubmissions(accountId, form.formId);
  return true;
}

/** Deletes a deleted form's submissions, a page of keys at a time; no new one can land once the form item is gone. */
async function removeSubmissions(accountId: string, formId: string): Promise<void> {
  const pages = queryPages({
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': submissionPartition(accountId, formId) },
    ProjectionExpression: 'pk, sk',
  });
  for await (const keys of pages) await batchWriteAll(keys.map((key) => ({ DeleteRequest: { Key: key } })));
}

/**
 * Counts a public view of a published form and returns it, in one write:
 * undefined when the form is gone or not published (and nothing is counted).
 */
export async function countView(route: FormRoute): Promise<StoredForm | undefined> {
  const item = await updateReturning({
    Key: formKey(route.accountId, route.formId),
    UpdateExpression: 'ADD #views :one',
    ConditionExpression: 'published = :true',
    ExpressionAttributeNames: { '#views': 'views' },
    ExpressionAttributeValues: { ':one': 1, ':true': true },
  });
  return item && toStored(item);
}

/**
 * Records a submission: its data (unless `stored` is false) and the form's
 * counters in one transaction, which holds only while the form is published.
 * Throws FORM_NOT_FOUND when it was unpublished or deleted meanwhile.
 */
export async function insertSubmission(accountId: string, submission: SubmissionRecord, stored: boolean, alongside: TransactItems = []): Promise<void> {
  const items: TransactItems = [];
  if (stored) {
    items.push(putNew({ ...submissionKey(accountId, submission), entity: 'submission', ...submission }));
  }
  // Before the form's update, whose cancellation reason is read as the last.
  items.push(...alongside);
  items.push({
    Update: {
      TableName: tableName,
      Key: formKey(accountId, submission.formId),
      UpdateExpression: `ADD submissions :one${stored ? ', storedSubmissions :one' : ''}`,
      ConditionExpression: 'published = :true',
      ExpressionAttributeValues: { ':one': 1, ':true': true },
    },
  });
  try {
    await transactWrite(items);
  } catch (error) {
    if (error instanceof TransactionCancelled && error.reasons.at(-1) === 'ConditionalCheckFailed') throw notFound.form();
    throw error;
  }
}

/** Newest first: the `limit` forms after skipping `offset`, optionally only published or unpublished ones, and the total. */
export async function listForms(
  accountId: string,
  published: boolean | undefined,
  offset: number,
  limit: number,
): Promise<{ forms: StoredForm[]; total: number }> {
  const input: Omit<QueryCommandInput, 'TableName'> =
    published === undefined
      ? { KeyConditionExpression: 'pk = :key', ExpressionAttributeValues: { ':key': formKey(accountId, '').pk }, ScanIndexForward: false }
      : {
          IndexName: 'gsi1',
          KeyConditionExpression: 'gsi1pk = :key',
          ExpressionAttributeValues: { ':key': publishedIndexKey(accountId, { formId: '', published }).gsi1pk },
          ScanIndexForward: false,
        };
  const [page, account] = await Promise.all([
    queryPage(input, offset, limit, offset + limit),
    db.send(
      new GetCommand({
        TableName: tableName,
        Key: accountKey(accountId),
        ProjectionExpression: '#forms, #published',
        ExpressionAttributeNames: { '#forms': FORM_COUNT, '#published': PUBLISHED_FORM_COUNT },
      }),
    ),
  ]);
  const all = Number(account.Item?.[FORM_COUNT] ?? 0);
  const publishedCount = Number(account.Item?.[PUBLISHED_FORM_COUNT] ?? 0);
  const total = published === undefined ? all : published ? publishedCount : all - publishedCount;
  return { forms: page.items.map(toStored), total };
}

/** Inclusive bounds on `createdAt`, as ISO strings (`2026-11-21T00:00:00.000Z`). */
export interface CreatedRange {
  from?: string;
  to?: string;
}

function submissionQuery(accountId: string, formId: string, range: CreatedRange): Omit<QueryCommandInput, 'TableName'> {
  const values: Record<string, unknown> = { ':pk': submissionPartition(accountId, formId) };
  let condition = 'pk = :pk';
  // `#` and every id character sort below `~`, so `<to>#~` is past every submission made at `to`.
  if (range.from !== undefined && range.to !== undefined) {
    condition += ' AND sk BETWEEN :from AND :to';
    Object.assign(values, { ':from': range.from, ':to': `${range.to}#~` });
  } else if (range.from !== undefined) {
    condition += ' AND sk >= :from';
    values[':from'] = range.from;
  } else if (range.to !== undefined) {
    condition += ' AND sk <= :to';
    values[':to'] = `${range.to}#~`;
  }
  return { KeyConditionExpression: condition, ExpressionAttributeValues: values, ScanIndexForward: false };
}

/** Items in a query's range, counted by DynamoDB (Select COUNT), following its 1 MB pages. */
async function countRange(input: Omit<QueryCommandInput, 'TableName'>): Promise<number> {
  let count = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page: QueryCommandOutput = await db.send(new QueryCommand({ ...input, TableName: tableName, Select: 'COUNT', ExclusiveStartKey: startKey }));
    count += page.Count ?? 0;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return count;
}

/**
 * Newest first. Without a range the total is the form's stored-submissions
 * counter (one read, already in hand); with one it is counted over the range.
 */
export async function listSubmissions(
  accountId: string,
  formId: string,
  range: CreatedRange,
  offset: number,
  limit: number,
): Promise<{ submissions: SubmissionRecord[]; rangeTotal?: number }> {
  const input = submissionQuery(accountId, formId, range);
  const ranged = range.from !== undefined || range.to !== undefined;
  const [page, rangeTotal] = await Promise.all([queryPage(input, offset, limit, offset + limit), ranged ? countRange(input) : Promise.resolve(undefined)]);
  return { submissions: page.items.map(toSubmission), ...(rangeTotal === undefined ? {} : { rangeTotal }) };
}

/**
 * Claims the one double opt-in email an address may get from a form per
 * window: true for the first claim, false while an earlier one's window runs.
 * One conditional write, so of any number of racing submissions exactly one wins.
 */
export async function claimConfirmationEmail(accountId: string, formId: string, email: string, now: Date, windowSeconds: number): Promise<boolean> {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  try {
    await db.send(
      new PutCommand({
        TableName: tableName,
        Item: { ...confirmationClaimKey(accountId, formId, email), entity: 'formConfirmation', expiresAt: nowSeconds + windowSeconds },
        ConditionExpression: 'attribute_not_exists(pk) OR expiresAt <= :now',
        ExpressionAttributeValues: { ':now': nowSeconds },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}
