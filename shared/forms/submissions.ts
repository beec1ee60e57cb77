/**
 * Public submissions to published forms: found by id or slug without a key,
 * rate limited per submitter address and per form, screened by a honeypot,
 * checked field by field, recorded with the form's counters in one
 * transaction, and then passed on: to the linked audience (with double
 * opt-in when the form asks for it) and to the notification address.
 */
import { eventWrite } from '#shared/events/service.ts';
import { createHash } from 'node:crypto';
import * as v from 'valibot';
import { insertSubmission, type FormFieldRecord, type FormRecord, type SubmissionRecord } from './store.ts';
import type { CounterLimits } from '#shared/platform/dynamodb/rate-windows.ts';
import { ConflictError, NotFoundError, PostlaneError, type ValidationError } from '#shared/platform/errors.ts';
import type { BodyFormat } from '#shared/platform/http/body-format.ts';
import { toValidationError } from '#shared/platform/schema/parse.ts';
import { newId } from '#shared/platform/ids.ts';
import { log } from '#shared/platform/log.ts';
import { CONTACT_LIMITS } from '#shared/contacts/schema.ts';
import { submissionSchema, type SubmissionInput, type submitReceiptReply } from './schema.ts';
import { createContact, getContactByEmail, type Contact } from '#shared/contacts/service.ts';
import { admitCounted } from '#shared/platform/dynamodb/counted-windows.ts';
import { sendConfirmationRequest, sendSubmissionNotice, submissionContext, type SubmissionContext } from './emails.ts';
import { findPublishedForm, HONEYPOT_FIELD } from './published.ts';

/**
 * A person submits a form a few times at most; an office behind one address
 * more. A form's own limit protects the account (storage, notification mail)
 * from a flood spread over many addresses.
 */
export const SUBMISSION_RATE_LIMITS = {
  perAddress: { windowSeconds: 60, perWindow: 20, perDay: 200 },
  perForm: { windowSeconds: 1, perWindow: 20, perDay: 50_000 },
} as const satisfies Record<string, CounterLimits>;

export interface SubmitRequest {
  body: SubmissionInput;
  /** A form post's values are all text: numbers and single checkboxes are read from it. */
  format: BodyFormat;
  sourceIp: string;
  now: Date;
}

/** `message`: the form's success message. */
export type SubmitReceipt = Omit<v.InferOutput<typeof submitReceiptReply>, 'success'>;

export interface FieldError {
  field: string;
  error: ValidationError['code'];
  message: string;
}

/**
 * Every problem of a submission at once (the hosted page marks each field);
 * the envelope's `error`, `message` and `field` are the first one's, and
 * `errors` lists them all.
 */
export class InvalidSubmission extends PostlaneError {
  override readonly name = 'InvalidSubmission';
  constructor(readonly errors: FieldError[]) {
    const [first] = errors as [FieldError, ...FieldError[]];
    super(first.error, first.message, { field: first.field, fields: { errors } });
  }
}

/**
 * Addresses are kept only as a hash, in items that expire after two days:
 * enough to count, not a log of who submitted.
 */
function addressKey(sourceIp: string): string {
  return createHash('sha256')
    .update(sourceIp || 'unknown')
    .digest('base64url')
    .slice(0, 22);
}

/** Counts the attempt against the submitter's and the form's limits; RATE_LIMIT_EXCEEDED with `retryAfter` past either. */
export async function admitSubmission(accountId: string, formId: string, sourceIp: string, now: Date): Promise<void> {
  await admitCounted(
    [
      [{ accountId, parts: ['FORMIP', addressKey(sourceIp)] }, SUBMISSION_RATE_LIMITS.perAddress, 'Too many submissions from this address'],
      [{ accountId, parts: ['FORM', formId] }, SUBMISSION_RATE_LIMITS.perForm, 'This form is receiving too many submissions'],
    ],
    now,
  );
}

const NUMERIC = /^-?\d+(?:\.\d+)?$/;

/** A form post carries text only: numbers and ratings are read as numbers, a lone checkbox as a list of one. */
function fromFormPost(fields: readonly FormFieldRecord[], body: SubmissionInput): SubmissionInput {
  const byId = new Map(fields.map((field) => [field.id, field]));
  return Object.fromEntries(
    Object.entries(body).map(([key, value]) => {
      const type = byId.get(key)?.type;
      if (typeof value !== 'string') return [key, value];
      if (type === 'checkbox') return [key, [value]];
      if ((type === 'number' || type === 'rating') && NUMERIC.test(value.trim())) return [key, Number(value)];
      return [key, value];
    }),
  );
}

/** Blank values (empty or white space, null, no checkbox ticked) are absent, as an empty input of a form post is. */
function isBlank(value: unknown): boolean {
  return value === null || (typeof value === 'string' && value.trim() === '') || (Array.isArray(value) && value.length === 0);
}

/**
 * The submission's values checked against the form's fields, or
 * InvalidSubmission listing each field's first problem.
 */
export function readSubmission(fields: readonly FormFieldRecord[], body: SubmissionInput, format: BodyFormat): Record<string, unknown> {
  const given = format === 'form' ? fromFormPost(fields, body) : body;
  const present = Object.fromEntries(Object.entries(given).filter(([key, value]) => key !== HONEYPOT_FIELD && !isBlank(value)));
  const result = v.safeParse(submissionSchema(fields), present, { abortEarly: false });
  if (result.success) return result.output;
  const byField = new Map<string, FieldError>();
  for (const issue of result.issues) {
    const error = toValidationError(issue);
    const field = error.details.field!;
    // The field's own id, not a path inside it, so the page can mark the field.
    const key = field.split(/[.[]/)[0]!;
    if (!byField.has(key)) byField.set(key, { field, error: error.code as FieldError['error'], message: error.message });
  }
  throw new InvalidSubmission([...byField.values()]);
}

export interface FormToSubmit {
  accountId: string;
  form: FormRecord;
  /** The submission's rate windows, counted beside the form's read. */
  admitted: Promise<void>;
}

/**
 * The published form a public path names, its rate windows counted beside
 * its read: the route already names the account and form they need. A
 * submission to an unpublished form so counts against its address too, which
 * only slows that address.
 */
export async function findFormToSubmit(formRef: string, request: SubmitRequest): Promise<FormToSubmit> {
  const { accountId, form, beside } = await findPublishedForm(formRef, (route) =>
    admitSubmission(route.accountId, route.formId, request.sourceIp, request.now),
  );
  return { accountId, form, admitted: beside };
}

/**
 * Submits to a published form (found by findFormToSubmit). The honeypot
 * answers like a success and records nothing; a form with `storeResponses:
 * false` counts the submission without keeping its data. The audience and the
 * notification follow the write, and their failures are logged rather than
 * refused: the submission is in.
 */
export async function submitToForm({ accountId, form, admitted }: FormToSubmit, request: SubmitRequest): Promise<SubmitReceipt> {
  const { now } = request;
  await admitted;
  const receipt = { submissionId: newId('sub', now.getTime()), message: form.settings.successMessage };
  if (!isBlank(request.body[HONEYPOT_FIELD] ?? null)) return receipt;

  const data = readSubmission(form.fields, request.body, request.format);
  const submission: SubmissionRecord = { submissionId: receipt.submissionId, formId: form.formId, data, createdAt: now.toISOString() };
  await insertSubmission(accountId, submission, form.settings.storeResponses, submittedEvent(accountId, form, submission, now));
  const passOn = async (step: string, work: () => Promise<void>) => {
    try {
      await work();
    } catch (error) {
      log.error(`form submission: could not ${step}`, { accountId, formId: form.formId, submissionId: submission.submissionId, error });
    }
  };
  const context = submissionContext(accountId, form, now);
  await Promise.all([
    passOn('link the contact', () => linkContact(accountId, form, data, context)),
    form.settings.notifyEmail ? passOn('notify', () => sendSubmissionNotice(accountId, form, submission, context)) : undefined,
  ]);
  return receipt;
}

/**
 * `form.submitted`, written with the submission: its values only when the
 * form keeps them (`storeResponses: false` keeps none, and events are kept too).
 */
function submittedEvent(accountId: string, form: FormRecord, submission: SubmissionRecord, now: Date) {
  const data = {
    formId: form.formId,
    submissionId: submission.submissionId,
    ...(form.settings.storeResponses ? { data: submission.data } : {}),
  };
  return eventWrite(accountId, { type: 'form.submitted', data, sourceKey: `submission:${submission.submissionId}` }, now.getTime());
}

/** The contact's details a submission gives: the first email field, fields with the ids firstName and lastName, the first phone field. */
function contactDetails(fields: readonly FormFieldRecord[], data: Record<string, unknown>) {
  const first = (type: FormFieldRecord['type']) => fields.find((field) => field.type === type && typeof data[field.id] === 'string');
  const name = (id: string) => {
    const value = data[id];
    return typeof value === 'string' && value.length <= CONTACT_LIMITS.name ? value : undefined;
  };
  const email = first('email');
  const phone = first('phone');
  const details: { firstName?: string; lastName?: string; phone?: string } = {
    ...(name('firstName') ? { firstName: name('firstName') } : {}),
    ...(name('lastName') ? { lastName: name('lastName') } : {}),
    ...(phone ? { phone: data[phone.id] as string } : {}),
  };
  return { email: email ? (data[email.id] as string) : undefined, details };
}

/**
 * Adds the submitter to the form's audience as a new contact: `subscribed`,
 * or `pending` with a confirmation email under double opt-in. A submission
 * is anonymous (anyone may type any address), so an existing contact is left
 * exactly as it is: its details, tags and status (an unsubscribed, bounced or
 * complained one stays so; the preferences link resubscribes). A pending one
 * may be asked again under double opt-in, at most once an hour per form.
 */
async function linkContact(accountId: string, form: FormRecord, data: Record<string, unknown>, context: SubmissionContext): Promise<void> {
  const { email, details } = contactDetails(form.fields, data);
  if (!form.audienceId || !email) return;
  const audienceId = form.audienceId;
  const doubleOptIn = form.settings.doubleOptIn;
  let contact: Contact;
  try {
    contact = await createContact(accountId, { email, audienceId, ...details, status: doubleOptIn ? 'pending' : 'subscribed' }, context.now);
  } catch (error) {
    if (error instanceof NotFoundError) {
      log.warn('form submission: the linked audience no longer exists', { accountId, formId: form.formId, audienceId });
      return;
    }
    if (!(error instanceof ConflictError) || error.code !== 'CONTACT_EXISTS') throw error;
    contact = await getContactByEmail(accountId, email, audienceId);
  }
  if (contact.status === 'pending' && doubleOptIn) {
    await sendConfirmationRequest(accountId, form, contact.email, context);
  }
}
