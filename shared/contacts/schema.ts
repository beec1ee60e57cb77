import * as v from 'valibot';
import { CONTACT_STATUSES, CREATABLE_STATUSES } from '#shared/audiences/contact-status.ts';
import { emailAddress, freeMap, optionalText, paginationQuery, requiredText, strictObject } from '#shared/platform/schema/common.ts';
import { count, nullableText, timestamp } from '#shared/platform/schema/replies.ts';

/** Field limits (the spec leaves them open): also keep a contact far below DynamoDB's 400 KB item size. */
export const CONTACT_LIMITS = {
  name: 256,
  phone: 32,
  tags: 50,
  tagLength: 64,
  customFields: 50,
  customFieldKey: 64,
  customFieldValue: 2048,
  bulkContacts: 1000,
} as const;

export const phone = v.pipe(v.string(), v.trim(), v.regex(/^\+?[0-9 ().-]{3,32}$/, 'must be a phone number: digits, spaces, + ( ) . -'));

const tags = v.pipe(
  v.array(
    v.pipe(
      v.string(),
      v.trim(),
      v.nonEmpty('must not be blank'),
      v.maxLength(CONTACT_LIMITS.tagLength, `must be at most ${CONTACT_LIMITS.tagLength} characters`),
    ),
  ),
  v.maxLength(CONTACT_LIMITS.tags, `must have at most ${CONTACT_LIMITS.tags} tags`),
  v.transform((list) => [...new Set(list)]),
);

const customFieldKey = v.pipe(
  v.string(),
  v.minLength(1, 'keys must not be empty'),
  v.maxLength(CONTACT_LIMITS.customFieldKey, `keys must be at most ${CONTACT_LIMITS.customFieldKey} characters`),
);

const customFieldValue = v.union(
  [
    v.pipe(v.string(), v.maxLength(CONTACT_LIMITS.customFieldValue, `values must be at most ${CONTACT_LIMITS.customFieldValue} characters`)),
    v.pipe(v.number(), v.finite()),
    v.boolean(),
  ],
  'values must be a string, a number or a boolean',
);

function customFieldsOf<T extends v.GenericSchema>(value: T) {
  return v.pipe(
    freeMap(customFieldKey, value),
    v.check((fields) => Object.keys(fields).length <= CONTACT_LIMITS.customFields, `must have at most ${CONTACT_LIMITS.customFields} keys`),
  );
}

/** Custom fields as stored: an update's merged result must meet these limits too, not only its own keys. */
export const storedCustomFields = customFieldsOf(customFieldValue);

const contactFields = {
  firstName: optionalText(CONTACT_LIMITS.name),
  lastName: optionalText(CONTACT_LIMITS.name),
  phone: v.optional(phone),
  status: v.optional(v.picklist(CREATABLE_STATUSES, `must be one of ${CREATABLE_STATUSES.join(', ')}`)),
  tags: v.optional(tags),
  customFields: v.optional(storedCustomFields),
};

export const createContactBody = strictObject({
  email: emailAddress,
  audienceId: requiredText(64),
  ...contactFields,
});
export type CreateContactInput = v.InferOutput<typeof createContactBody>;

const immutable = (name: string) => v.optional(v.custom(() => false, `${name} cannot be changed; create a new contact instead`));

/** Only the fields given change; `null` clears a name or phone, and removes a custom field. */
export const updateContactBody = strictObject({
  firstName: v.optional(v.nullable(v.pipe(v.string(), v.trim(), v.maxLength(CONTACT_LIMITS.name)))),
  lastName: v.optional(v.nullable(v.pipe(v.string(), v.trim(), v.maxLength(CONTACT_LIMITS.name)))),
  phone: v.optional(v.nullable(phone)),
  status: v.optional(v.picklist(CONTACT_STATUSES, `must be one of ${CONTACT_STATUSES.join(', ')}`)),
  tags: v.optional(tags),
  customFields: v.optional(customFieldsOf(v.nullable(customFieldValue))),
  email: immutable('email'),
  audienceId: immutable('audienceId'),
});
export type UpdateContactInput = v.InferOutput<typeof updateContactBody>;

/** One entry of a bulk import; validated one by one so a bad entry fails alone. */
export const importedContact = strictObject({ email: emailAddress, ...contactFields });
export type ImportedContactInput = v.InferOutput<typeof importedContact>;

export const bulkImportBody = strictObject({
  audienceId: requiredText(64),
  contacts: v.pipe(v.array(v.unknown()), v.maxLength(CONTACT_LIMITS.bulkContacts, `must have at most ${CONTACT_LIMITS.bulkContacts} contacts per request`)),
  skipDuplicates: v.optional(v.boolean(), false),
});
export type BulkImportInput = v.InferOutput<typeof bulkImportBody>;

export const listContactsQuery = v.object({
  audienceId: v.optional(v.pipe(v.string(), v.nonEmpty())),
  status: v.optional(v.picklist(CONTACT_STATUSES, `must be one of ${CONTACT_STATUSES.join(', ')}`)),
  tag: v.optional(v.pipe(v.string(), v.trim(), v.nonEmpty(), v.maxLength(CONTACT_LIMITS.tagLength))),
  search: v.optional(v.pipe(v.string(), v.trim(), v.nonEmpty(), v.maxLength(256))),
  ...paginationQuery(50, 100),
});
export type ListContactsQuery = v.InferOutput<typeof listContactsQuery>;

export const contactByEmailQuery = v.object({ audienceId: requiredText(64) });

// Replies.

const contactStatusReply = v.picklist(CONTACT_STATUSES);
const replyCustomFields = v.record(v.string(), v.union([v.string(), v.number(), v.boolean()]));

export const contactSchema = v.strictObject({
  id: v.string(),
  email: v.string(),
  audienceId: v.string(),
  firstName: nullableText,
  lastName: nullableText,
  phone: nullableText,
  status: contactStatusReply,
  tags: v.array(v.string()),
  customFields: replyCustomFields,
  createdAt: timestamp,
  updatedAt: timestamp,
  lastActivityAt: timestamp,
});

export const contactListItemSchema = v.strictObject({
  id: v.string(),
  email: v.string(),
  firstName: nullableText,
  lastName: nullableText,
  status: contactStatusReply,
  audienceId: v.string(),
  tags: v.array(v.string()),
  createdAt: timestamp,
});

export const importResultReply = v.strictObject({
  success: v.literal(true),
  imported: count,
  failed: count,
  skipped: count,
  errors: v.array(
    v.strictObject({
      index: count,
      email: v.unknown(),
      error: v.string(),
      message: v.string(),
      field: v.optional(v.string()),
    }),
  ),
});

/** An export: `url` and `expiresAt` while `ready` (a link minted for each answer), `reason` once `failed`. */
export const audienceExportReply = v.strictObject({
  id: v.string(),
  status: v.picklist(['queued', 'running', 'ready', 'failed']),
  rows: count,
  url: v.optional(v.pipe(v.string(), v.url())),
  expiresAt: v.optional(timestamp),
  reason: v.optional(v.string()),
  createdAt: timestamp,
});
