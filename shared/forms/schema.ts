import * as v from 'valibot';
import {
  emailAddress,
  fieldRule,
  freeMap,
  isCalendarDate,
  isHeaderSafe,
  isoDate,
  optionalText,
  paginationQuery,
  requiredText,
  strictObject,
} from '#shared/platform/schema/common.ts';
import { phone } from '#shared/contacts/schema.ts';
import { attachment, decodedBase64Size } from '#shared/attachments/schema.ts';
import { mailbox } from '#shared/sending/schema.ts';
import { count, nullableText, timestamp } from '#shared/platform/schema/replies.ts';

/** Field limits (the spec leaves them open); a form item stays far below DynamoDB's 400 KB. */
export const FORM_LIMITS = {
  title: 200,
  description: 2000,
  fields: 50,
  label: 200,
  placeholder: 200,
  options: 50,
  option: 200,
  successMessage: 1000,
  slugMin: 3,
  slugMax: 64,
  buttonText: 60,
  fontFamily: 100,
} as const;

export const FIELD_TYPES = ['text', 'email', 'number', 'textarea', 'select', 'checkbox', 'radio', 'date', 'phone', 'file', 'rating'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** The types whose values come from the field's `options`. */
export const CHOICE_TYPES: readonly FieldType[] = ['select', 'checkbox', 'radio'];

export const BUTTON_VARIANTS = ['filled', 'outline', 'ghost'] as const;

/** A field id is a submission key and an HTML id: it starts with a letter, so it never meets the reserved `_hp`. */
export const FIELD_ID = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
/** Lower-case letters and digits in hyphen-separated words: safe in a URL path as it is. */
export const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export const slug = v.pipe(
  v.string(),
  v.trim(),
  v.minLength(FORM_LIMITS.slugMin, `must be ${FORM_LIMITS.slugMin} to ${FORM_LIMITS.slugMax} characters`),
  v.maxLength(FORM_LIMITS.slugMax, `must be ${FORM_LIMITS.slugMin} to ${FORM_LIMITS.slugMax} characters`),
  v.regex(SLUG, 'must be lower-case letters and digits, words separated by single hyphens'),
);

const formFieldEntries = strictObject({
  id: v.pipe(v.string(), v.regex(FIELD_ID, 'must start with a letter and hold at most 64 letters, digits, _ and -')),
  type: v.picklist(FIELD_TYPES, `must be one of ${FIELD_TYPES.join(', ')}`),
  label: requiredText(FORM_LIMITS.label),
  placeholder: optionalText(FORM_LIMITS.placeholder),
  required: v.optional(v.boolean(), false),
  /** For select, checkbox and radio only. */
  options: v.optional(
    v.pipe(
      v.array(requiredText(FORM_LIMITS.option)),
      v.nonEmpty('must list at least one option'),
      v.maxLength(FORM_LIMITS.options, `must have at most ${FORM_LIMITS.options} options`),
      v.check((options) => new Set(options).size === options.length, 'must not repeat an option'),
    ),
  ),
});

type FormFieldEntries = v.InferOutput<typeof formFieldEntries>;

/** A field's options go with its type: the choice types need them, the others take none. */
const formField = v.pipe(
  formFieldEntries,
  v.description('`options` is required for select, checkbox and radio fields, and refused on the others.'),
  fieldRule<FormFieldEntries>(
    'options',
    (field) => !CHOICE_TYPES.includes(field.type) || field.options !== undefined,
    (issue) => `is required for ${(issue.input as FormFieldEntries).type} fields`,
  ),
  fieldRule<FormFieldEntries>(
    'options',
    (field) => CHOICE_TYPES.includes(field.type) || field.options === undefined,
    'only select, checkbox and radio fields take options',
  ),
);
export type FormFieldInput = v.InferOutput<typeof formField>;

const fields = v.pipe(
  v.array(formField),
  v.nonEmpty('must have at least one field'),
  v.maxLength(FORM_LIMITS.fields, `must have at most ${FORM_LIMITS.fields} fields`),
);

/**
 * Colours go into the page's CSS: a hex colour, or a CSS colour name (letters
 * only), so no value can close the declaration or the style block.
 */
export const CSS_COLOR = /^(?:#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})|[a-zA-Z]{3,30})$/;
/** A CSS font-family list: names, spaces, commas and quotes; nothing that ends a declaration. */
export const CSS_FONT_FAMILY = /^[A-Za-z0-9 ,'"-]{1,100}$/;

const color = v.pipe(v.string(), v.trim(), v.regex(CSS_COLOR, 'must be a hex colour (#1a2b3c) or a CSS colour name'));
const fontFamily = v.pipe(
  v.string(),
  v.trim(),
  v.nonEmpty(),
  v.maxLength(FORM_LIMITS.fontFamily, `must be at most ${FORM_LIMITS.fontFamily} characters`),
  v.regex(CSS_FONT_FAMILY, 'must be font names separated by commas'),
  v.check((value) => (value.split('"').length - 1) % 2 === 0 && (value.split("'").length - 1) % 2 === 0, 'must have balanced quotes'),
);

const appearanceEntries = { backgroundColor: color, primaryColor: color, fontFamily };
const buttonEntries = {
  text: requiredText(FORM_LIMITS.buttonText),
  variant: v.picklist(BUTTON_VARIANTS, `must be one of ${BUTTON_VARIANTS.join(', ')}`),
};

/** The sender of the form's emails: `Name <address>` on a verified domain of the account. */
const sender = v.pipe(mailbox, v.check(isHeaderSafe));

const settingsEntries = {
  successMessage: requiredText(FORM_LIMITS.successMessage),
  notifyEmail: emailAddress,
  enableCaptcha: v.boolean(),
  storeResponses: v.boolean(),
  doubleOptIn: v.boolean(),
  from: sender,
};

const optionalEntries = <T extends Record<string, v.GenericSchema>>(entries: T) =>
  Object.fromEntries(Object.entries(entries).map(([name, schema]) => [name, v.optional(schema)])) as { [K in keyof T]: v.OptionalSchema<T[K], undefined> };
/** In an update: a given key replaces, `null` clears an optional setting, an absent key stays. */
const clearableEntries = <T extends Record<string, v.GenericSchema>>(entries: T) =>
  Object.fromEntries(Object.entries(entries).map(([name, schema]) => [name, v.optional(v.nullable(schema))])) as {
    [K in keyof T]: v.OptionalSchema<v.NullableSchema<T[K], undefined>, undefined>;
  };

const audienceId = requiredText(64);

/** POST /api/forms. Cross-field rules (options per type, unique ids, what doubleOptIn needs) are the domain's. */
export const createFormBody = strictObject({
  title: requiredText(FORM_LIMITS.title),
  description: optionalText(FORM_LIMITS.description),
  slug: v.optional(slug),
  published: v.optional(v.boolean(), false),
  fields,
  settings: v.optional(strictObject(optionalEntries(settingsEntries)), {}),
  audienceId: v.optional(audienceId),
  appearance: v.optional(strictObject(optionalEntries(appearanceEntries)), {}),
  buttonCustomization: v.optional(strictObject(optionalEntries(buttonEntries)), {}),
});
export type CreateFormInput = v.InferOutput<typeof createFormBody>;

/** PATCH /api/forms/:id: only what is given changes; `fields` replaces the list; settings, appearance and button merge key by key. */
export const updateFormBody = strictObject({
  title: v.optional(requiredText(FORM_LIMITS.title)),
  description: v.optional(
    v.nullable(v.pipe(v.string(), v.trim(), v.maxLength(FORM_LIMITS.description, `must be at most ${FORM_LIMITS.description} characters`))),
  ),
  slug: v.optional(slug),
  published: v.optional(v.boolean()),
  fields: v.optional(fields),
  settings: v.optional(
    strictObject({
      ...optionalEntries({
        successMessage: settingsEntries.successMessage,
        enableCaptcha: settingsEntries.enableCaptcha,
        storeResponses: settingsEntries.storeResponses,
        doubleOptIn: settingsEntries.doubleOptIn,
      }),
      ...clearableEntries({ notifyEmail: settingsEntries.notifyEmail, from: settingsEntries.from }),
    }),
  ),
  audienceId: v.optional(v.nullable(audienceId)),
  appearance: v.optional(strictObject(optionalEntries(appearanceEntries))),
  buttonCustomization: v.optional(strictObject(optionalEntries(buttonEntries))),
});
export type UpdateFormInput = v.InferOutput<typeof updateFormBody>;

const booleanParam = v.pipe(
  v.string(),
  v.picklist(['true', 'false'], 'must be true or false'),
  v.transform((value) => value === 'true'),
);

export const listFormsQuery = v.object({
  published: v.optional(booleanParam),
  ...paginationQuery(20, 100),
});
export type ListFormsQuery = v.InferOutput<typeof listFormsQuery>;

/** `2026-02-30` passes a pattern and even Date.parse (which rolls it into March); only a round trip catches it. */
export const listSubmissionsQuery = v.object({
  startDate: v.optional(isoDate),
  endDate: v.optional(isoDate),
  ...paginationQuery(20, 100),
});
export type ListSubmissionsQuery = v.InferOutput<typeof listSubmissionsQuery>;

/**
 * A submission body before the form's own rules apply: an object (JSON or a
 * form post). Keys and values are checked against the form's fields by the domain.
 */
export const submissionBody = freeMap(v.string(), v.unknown());
export type SubmissionInput = v.InferOutput<typeof submissionBody>;

/** Bounds of submitted values; with the submit route's body limit they keep a stored submission under DynamoDB's 400 KB. */
export const SUBMISSION_LIMITS = {
  text: 1000,
  textarea: 10_000,
  /** Decoded bytes of one file field's content. */
  fileBytes: 200 * 1024,
  ratingMin: 1,
  ratingMax: 5,
} as const;

/** The definition a submitted value is checked against. */
export type FieldDefinition = Pick<FormFieldInput, 'id' | 'type' | 'required' | 'options'>;

const calendarDate = v.pipe(v.string(), v.trim(), v.isoDate('must be an ISO date: YYYY-MM-DD'), v.check(isCalendarDate, 'must be a real date'));

/** A file as the send API takes attachments (`filename`, `contentType`, base64 `content`), bounded, stored with its `size`. */
const file = v.pipe(
  attachment,
  v.check((value) => decodedBase64Size(value.content) <= SUBMISSION_LIMITS.fileBytes, `must be at most ${SUBMISSION_LIMITS.fileBytes / 1024} KB`),
  v.transform((value) => ({ ...value, size: decodedBase64Size(value.content) })),
);

function oneOf(options: readonly string[]) {
  return v.picklist(options as string[], "must be one of the field's options");
}

/** The schema one field's value must meet, by the spec's table of field types. */
function valueSchema(field: FieldDefinition): v.GenericSchema {
  const options = field.options ?? [];
  switch (field.type) {
    case 'text':
      return v.pipe(v.string(), v.trim(), v.maxLength(SUBMISSION_LIMITS.text, `must be at most ${SUBMISSION_LIMITS.text} characters`));
    case 'textarea':
      return v.pipe(v.string(), v.trim(), v.maxLength(SUBMISSION_LIMITS.textarea, `must be at most ${SUBMISSION_LIMITS.textarea} characters`));
    case 'email':
      return emailAddress;
    case 'phone':
      return phone;
    case 'number':
      return v.pipe(v.number('must be a number'), v.finite('must be a finite number'));
    case 'rating': {
      const message = `must be a whole number from ${SUBMISSION_LIMITS.ratingMin} to ${SUBMISSION_LIMITS.ratingMax}`;
      return v.pipe(v.number(message), v.integer(message), v.minValue(SUBMISSION_LIMITS.ratingMin, message), v.maxValue(SUBMISSION_LIMITS.ratingMax, message));
    }
    case 'date':
      return calendarDate;
    case 'select':
    case 'radio':
      return oneOf(options);
    case 'checkbox':
      return v.pipe(
        v.array(oneOf(options), "must be a list of the field's options"),
        v.check((chosen) => new Set(chosen).size === chosen.length, 'must not repeat an option'),
      );
    case 'file':
      return file;
  }
}

/**
 * The strict schema of a submission to a form with these fields: each key a
 * field id, each value of its field's type, required fields present, unknown
 * keys refused. Blank values must be removed first (they count as absent).
 */
export function submissionSchema(fields: readonly FieldDefinition[]) {
  return v.strictObject(
    Object.fromEntries(
      fields.map((field) => {
        const schema = valueSchema(field);
        return [field.id, field.required ? schema : v.optional(schema)];
      }),
    ),
  );
}

// Replies.

const formFieldSchema = v.strictObject({
  id: v.string(),
  type: v.string(),
  label: v.string(),
  placeholder: nullableText,
  required: v.boolean(),
  options: v.optional(v.array(v.string())),
});

const formLook = {
  appearance: v.strictObject({ backgroundColor: v.string(), primaryColor: v.string(), fontFamily: v.string() }),
  buttonCustomization: v.strictObject({ text: v.string(), variant: v.string() }),
};

/** What a form and its list item share. */
const formSummary = {
  id: v.string(),
  title: v.string(),
  description: nullableText,
  slug: v.string(),
  published: v.boolean(),
  /** The hosted page, `{forms_url}/f/<slug>`, whether or not it is published yet (it answers 404 until it is). */
  publishedUrl: v.string(),
  fields: v.array(formFieldSchema),
  createdAt: timestamp,
  updatedAt: timestamp,
};

export const formSchema = v.strictObject({
  ...formSummary,
  settings: v.strictObject({
    successMessage: v.string(),
    notifyEmail: nullableText,
    enableCaptcha: v.boolean(),
    storeResponses: v.boolean(),
    doubleOptIn: v.boolean(),
    from: nullableText,
  }),
  audienceId: nullableText,
  ...formLook,
});

export const formListItemSchema = v.strictObject({
  ...formSummary,
  analytics: v.strictObject({ views: count, submissions: count, conversionRate: v.number() }),
});

export const publicFormSchema = v.strictObject({
  title: v.string(),
  description: nullableText,
  fields: v.array(formFieldSchema),
  ...formLook,
});

export const submissionRecordSchema = v.strictObject({ id: v.string(), data: v.record(v.string(), v.unknown()), createdAt: timestamp });

export const submitReceiptReply = v.strictObject({ success: v.literal(true), message: v.string(), submissionId: v.string() });
