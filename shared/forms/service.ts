/**
 * Forms over the API (create, update, delete beyond the spec; list, get,
 * the public view and the submissions list as the spec gives them).
 */
import { randomBytes } from 'node:crypto';
import { config } from '#shared/platform/config.ts';
import { getAudienceRecord } from '#shared/audiences/service.ts';
import {
  countView,
  findFormRoute,
  getForm as readForm,
  insertForm,
  listForms as readForms,
  listSubmissions as readSubmissions,
  removeForm,
  replaceForm,
  type FormCounters,
  type FormFieldRecord,
  type FormRecord,
  type StoredForm,
} from './store.ts';
import { ConflictError, notFound, ValidationError } from '#shared/platform/errors.ts';
import { isId, newId } from '#shared/platform/ids.ts';
import { instantOf, pagination, type Pagination } from '#shared/platform/schema/common.ts';
import {
  FORM_LIMITS,
  SLUG,
  type CreateFormInput,
  type FormFieldInput,
  type formListItemSchema,
  type formSchema,
  type ListFormsQuery,
  type ListSubmissionsQuery,
  type publicFormSchema,
  type submissionRecordSchema,
  type UpdateFormInput,
} from './schema.ts';
import type * as v from 'valibot';
import { ensureDefaultSender, ensureVerifiedSender, parseMailboxField } from '#shared/sending/sender.ts';
import { publicBase } from '#shared/platform/public-urls.ts';
import { orNull, pick } from '#shared/platform/views.ts';
import { findById } from '#shared/platform/lookup.ts';
import type { Principal } from '#shared/accounts/api-keys.ts';

export const FORM_DEFAULTS = {
  successMessage: 'Thank you! Your submission has been received.',
  appearance: { backgroundColor: '#ffffff', primaryColor: '#2563eb', fontFamily: 'system-ui, sans-serif' },
  buttonCustomization: { text: 'Submit', variant: 'filled' },
} as const;

export type Form = v.InferOutput<typeof formSchema>;
export type FormField = Form['fields'][number];
export type FormListItem = v.InferOutput<typeof formListItemSchema>;
export type FormAnalytics = FormListItem['analytics'];
/** What anyone may see of a published form: no id, slug, settings or audience. */
export type PublicForm = v.InferOutput<typeof publicFormSchema>;
export type Submission = v.InferOutput<typeof submissionRecordSchema>;

function toField(field: FormFieldRecord): FormField {
  return { ...pick(field, 'id', 'type', 'label', 'required'), ...orNull(field, 'placeholder'), ...(field.options ? { options: field.options } : {}) };
}

export function toForm(record: FormRecord): Form {
  const { settings } = record;
  return {
    id: record.formId,
    ...pick(record, 'title', 'slug', 'published', 'appearance', 'buttonCustomization', 'createdAt', 'updatedAt'),
    publishedUrl: publishedUrl(record.slug),
    ...orNull(record, 'description', 'audienceId'),
    fields: record.fields.map(toField),
    settings: { ...pick(settings, 'successMessage', 'enableCaptcha', 'storeResponses', 'doubleOptIn'), ...orNull(settings, 'notifyEmail', 'from') },
  };
}

export function toPublicForm(record: FormRecord): PublicForm {
  const { title, description, fields, appearance, buttonCustomization } = toForm(record);
  return { title, description, fields, appearance, buttonCustomization };
}

/** submissions / views × 100 to one decimal; 0 before the first view (API submissions can exceed 100). */
export function conversionRate(counters: Pick<FormCounters, 'views' | 'submissions'>): number {
  return counters.views === 0 ? 0 : Math.round((counters.submissions / counters.views) * 1000) / 10;
}

/** Where the hosted pages live: FORMS_URL, else PUBLIC_BASE_URL (never the request's own host). */
export function formsBase(): string {
  return config.FORMS_URL ? config.FORMS_URL.replace(/\/+$/, '') : publicBase();
}

/** `https://forms.example.com/f/newsletter` */
export function publishedUrl(slug: string): string {
  return `${formsBase()}/f/${slug}`;
}

function toListItem({ form, counters }: StoredForm): FormListItem {
  const { id, title, description, slug, published, publishedUrl, fields, createdAt, updatedAt } = toForm(form);
  return {
    id,
    title,
    description,
    slug,
    published,
    publishedUrl,
    fields,
    createdAt,
    updatedAt,
    analytics: { views: counters.views, submissions: counters.submissions, conversionRate: conversionRate(counters) },
  };
}

/**
 * A slug from a title: `Spring Sale — 2026!` gives `spring-sale-2026`. Accents
 * fold to their letters; titles with too few letters give `form`.
 */
export function slugify(title: string): string {
  const words = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-');
  // Room for the suffix a taken slug gets.
  const cut = words
    .replace(/^-+/, '')
    .slice(0, FORM_LIMITS.slugMax - SUFFIX_LENGTH - 1)
    .replace(/-+$/, '');
  return cut.length >= FORM_LIMITS.slugMin ? cut : 'form';
}

const SUFFIX_LENGTH = 6;
/** A generated slug that is taken gets a random suffix; this many tries make a clash vanishingly unlikely. */
const SLUG_ATTEMPTS = 5;

function withSuffix(base: string): string {
  return `${base}-${randomBytes(SUFFIX_LENGTH).toString('hex').slice(0, SUFFIX_LENGTH)}`;
}

/**
 * The rules across fields the schema cannot state, since an update is judged
 * merged with the stored form: unique ids, what a linked audience and emails
 * need. (Options by field type are the schema's: fields are replaced whole.)
 */
function checkConfiguration(form: FormRecord): void {
  const seen = new Map<string, number>();
  form.fields.forEach((field, index) => {
    const at = `fields[${index}]`;
    const first = seen.get(field.id);
    if (first !== undefined) throw new ValidationError('VALIDATION_ERROR', `${at}.id repeats the id of fields[${first}]`, `${at}.id`);
    seen.set(field.id, index);
  });
  const hasEmailField = form.fields.some((field) => field.type === 'email');
  if (form.audienceId && !hasEmailField) {
    throw new ValidationError('VALIDATION_ERROR', 'audienceId: a form linked to an audience needs an email field', 'audienceId');
  }
  if (form.settings.doubleOptIn && !form.audienceId) {
    throw new ValidationError('VALIDATION_ERROR', 'settings.doubleOptIn: double opt-in needs a linked audience (audienceId)', 'settings.doubleOptIn');
  }
}

/**
 * The setting that makes a form send mail without a `from` of its own, which
 * then needs the account's default sender: `notifyEmail` first, as decided.
 */
function needsDefaultSender({ settings }: FormRecord): string | undefined {
  if (settings.from) return undefined;
  if (settings.notifyEmail) return 'settings.notifyEmail';
  return settings.doubleOptIn ? 'settings.doubleOptIn' : undefined;
}

type SenderSettings = Pick<FormRecord['settings'], 'from' | 'notifyEmail' | 'doubleOptIn'>;

/** Whether an update touched what decides the form's sender. */
function senderChanged(before: SenderSettings, after: SenderSettings): boolean {
  return before.from !== after.from || before.notifyEmail !== after.notifyEmail || before.doubleOptIn !== after.doubleOptIn;
}

/**
 * What the account must own for a configuration to work: the linked audience,
 * and the sender's domain, verified (or, without `from`, a verified domain
 * for the default sender).
 */
async function checkReferences(accountId: string, form: FormRecord, changed: { audienceId: boolean; sender: boolean }): Promise<void> {
  const checks: Promise<void>[] = [];
  if (changed.audienceId && form.audienceId) {
    const audienceId = form.audienceId;
    checks.push(
      (async () => {
        if (!isId('aud', audienceId) || !(await getAudienceRecord(accountId, audienceId))) throw notFound.audience();
      })(),
    );
  }
  if (changed.sender && form.settings.from) {
    const from = form.settings.from;
    // Inside the promise: a malformed address thrown synchronously would leave the audience check's rejection unhandled.
    checks.push((async () => ensureVerifiedSender(accountId, parseMailboxField(from, 'settings.from'), 'settings.from'))());
  }
  const needing = needsDefaultSender(form);
  if (changed.sender && needing) checks.push(ensureDefaultSender(accountId, needing));
  await Promise.all(checks);
}

function toFieldRecord(field: FormFieldInput): FormFieldRecord {
  return {
    id: field.id,
    type: field.type,
    label: field.label,
    ...(field.placeholder ? { placeholder: field.placeholder } : {}),
    required: field.required,
    ...(field.options ? { options: field.options } : {}),
  };
}

/** Keys given as undefined are left out, so optional settings stay absent rather than stored as nothing. */
function defined<T extends Record<string, unknown>>(entries: T): Partial<T> {
  return Object.fromEntries(Object.entries(entries).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/** Who creates or changes a form: its account, and the environment its emails then go out in (FormRecord `env`). */
export type FormAuthor = Pick<Principal, 'accountId' | 'env'>;

export async function createForm({ accountId, env }: FormAuthor, input: CreateFormInput, now: Date): Promise<Form> {
  const at = now.toISOString();
  const record: FormRecord = {
    formId: newId('frm', now.getTime()),
    title: input.title,
    ...(input.description ? { description: input.description } : {}),
    slug: input.slug ?? slugify(input.title),
    published: input.published,
    fields: input.fields.map(toFieldRecord),
    settings: {
      successMessage: FORM_DEFAULTS.successMessage,
      enableCaptcha: false,
      storeResponses: true,
      doubleOptIn: false,
      ...defined(input.settings),
    },
    ...(input.audienceId ? { audienceId: input.audienceId } : {}),
    appearance: { ...FORM_DEFAULTS.appearance, ...defined(input.appearance) },
    buttonCustomization: { ...FORM_DEFAULTS.buttonCustomization, ...defined(input.buttonCustomization) },
    createdAt: at,
    updatedAt: at,
    env,
    version: 1,
  };
  checkConfiguration(record);
  await checkReferences(accountId, record, { audienceId: true, sender: true });
  for (let attempt = 1; ; attempt++) {
    try {
      await insertForm(accountId, record);
      return toForm(record);
    } catch (error) {
      // A slug the client chose is theirs to change; one made from the title gets a suffix.
      if (!(error instanceof ConflictError) || error.code !== 'SLUG_TAKEN' || input.slug !== undefined || attempt === SLUG_ATTEMPTS) throw error;
      record.slug = withSuffix(slugify(input.title));
    }
  }
}

async function findForm(accountId: string, formId: string): Promise<StoredForm> {
  const found = await findById('frm', formId, () => readForm(accountId, formId), notFound.form);
  return found;
}

export async function getForm(accountId: string, formId: string): Promise<Form> {
  return toForm((await findForm(accountId, formId)).form);
}

/** Applies an update: given keys replace, `null` clears, settings, appearance and button merge key by key. */
function applyFormUpdate(before: FormRecord, input: UpdateFormInput, env: FormAuthor['env'], now: Date): FormRecord {
  const next: FormRecord = { ...before, updatedAt: now.toISOString(), env, version: before.version + 1 };
  if (input.title !== undefined) next.title = input.title;
  if (input.description === null || input.description === '') delete next.description;
  else if (input.description !== undefined) next.description = input.description;
  if (input.slug !== undefined) next.slug = input.slug;
  if (input.published !== undefined) next.published = input.published;
  if (input.fields !== undefined) next.fields = input.fields.map(toFieldRecord);
  if (input.audienceId === null) delete next.audienceId;
  else if (input.audienceId !== undefined) next.audienceId = input.audienceId;
  if (input.settings) {
    const settings: FormRecord['settings'] = { ...before.settings, ...defined({ ...input.settings, notifyEmail: undefined, from: undefined }) };
    for (const key of ['notifyEmail', 'from'] as const) {
      const value = input.settings[key];
      if (value === null) delete settings[key];
      else if (value !== undefined) settings[key] = value;
    }
    next.settings = settings;
  }
  if (input.appearance) next.appearance = { ...before.appearance, ...defined(input.appearance) };
  if (input.buttonCustomization) next.buttonCustomization = { ...before.buttonCustomization, ...defined(input.buttonCustomization) };
  return next;
}

/** Retries of a read-modify-write that lost to a concurrent change before giving up with 409. */
const OPTIMISTIC_RETRIES = 5;

/** Any change, whatever it touches, moves the form's emails to the environment of the key that made it. */
export async function updateForm({ accountId, env }: FormAuthor, formId: string, input: UpdateFormInput, now: Date): Promise<Form> {
  for (let attempt = 0; attempt < OPTIMISTIC_RETRIES; attempt++) {
    const { form: before } = await findForm(accountId, formId);
    const after = applyFormUpdate(before, input, env, now);
    checkConfiguration(after);
    await checkReferences(accountId, after, {
      audienceId: after.audienceId !== before.audienceId,
      sender: senderChanged(before.settings, after.settings),
    });
    if (await replaceForm(accountId, before, after)) return toForm(after);
  }
  throw new ConflictError('CONFLICT', 'The form changed concurrently; retry the request');
}

/** Removes the form, frees its slug and deletes its submissions. */
export async function deleteForm(accountId: string, formId: string): Promise<void> {
  for (let attempt = 0; attempt < OPTIMISTIC_RETRIES; attempt++) {
    const { form } = await findForm(accountId, formId);
    if (await removeForm(accountId, form)) return;
  }
  throw new ConflictError('CONFLICT', 'The form changed concurrently; retry the request');
}

export async function listForms(accountId: string, query: ListFormsQuery): Promise<{ forms: FormListItem[]; pagination: Pagination }> {
  const { page, limit, published } = query;
  const { forms, total } = await readForms(accountId, published, (page - 1) * limit, limit);
  return { forms: forms.map((stored) => toListItem(stored)), pagination: pagination(total, page, limit) };
}

/**
 * The published form at a public slug, counting the view (Get Public Form
 * and the hosted page). FORM_NOT_FOUND for an unknown or unpublished one,
 * which is not counted.
 */
export async function viewPublishedForm(slug: string, countsView = true): Promise<FormRecord> {
  const route = SLUG.test(slug) ? await findFormRoute(slug) : undefined;
  // A HEAD shows the form to nobody (link checkers, mail scanners): it reads, and counts no view.
  const stored = !route
    ? undefined
    : countsView
      ? await countView(route)
      : await readForm(route.accountId, route.formId).then((found) => (found?.form.published ? found : undefined));
  if (!stored) throw notFound.form();
  return stored.form;
}

export async function getPublicForm(slug: string, countsView = true): Promise<PublicForm> {
  return toPublicForm(await viewPublishedForm(slug, countsView));
}

/** The inclusive createdAt bounds of a submissions query; a bare date spans its whole UTC day. */
function createdRange(query: Pick<ListSubmissionsQuery, 'startDate' | 'endDate'>): { from?: string; to?: string } {
  const instant = (value: string, endOfDay: boolean) => instantOf(value, endOfDay).toISOString();
  const range = {
    ...(query.startDate ? { from: instant(query.startDate, false) } : {}),
    ...(query.endDate ? { to: instant(query.endDate, true) } : {}),
  };
  if (range.from && range.to && range.from > range.to) {
    throw new ValidationError('VALIDATION_ERROR', 'startDate must not be after endDate', 'startDate');
  }
  return range;
}

export async function listSubmissions(
  accountId: string,
  formId: string,
  query: ListSubmissionsQuery,
): Promise<{ submissions: Submission[]; pagination: Pagination }> {
  const { page, limit } = query;
  const range = createdRange(query);
  if (!isId('frm', formId)) throw notFound.form();
  const [stored, found] = await Promise.all([readForm(accountId, formId), readSubmissions(accountId, formId, range, (page - 1) * limit, limit)]);
  if (!stored) throw notFound.form();
  return {
    submissions: found.submissions.map((submission) => ({ id: submission.submissionId, data: submission.data, createdAt: submission.createdAt })),
    pagination: pagination(found.rangeTotal ?? stored.counters.storedSubmissions, page, limit),
  };
}
