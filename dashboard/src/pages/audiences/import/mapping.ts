/**
 * The pure part of importing contacts from a CSV file: guessing what each
 * column is from its header, and turning one parsed row into the contact the
 * bulk import endpoint takes, checked with the API's own schema so a row it
 * would refuse is reported without being sent. No DOM, no worker: unit-tested
 * in test/dashboard/contact-import-mapping.test.ts.
 */
import * as v from 'valibot';
import { importedContact } from '#shared/contacts/schema.ts';
import { toValidationError } from '#shared/platform/schema/parse.ts';

export const FIELD_TARGETS = ['email', 'firstName', 'lastName', 'phone', 'tags', 'custom', 'ignore'] as const;
export type FieldTarget = (typeof FIELD_TARGETS)[number];

export const TARGET_LABELS: Record<FieldTarget, string> = {
  email: 'Email',
  firstName: 'First name',
  lastName: 'Last name',
  phone: 'Phone',
  tags: 'Tags',
  custom: 'Custom field',
  ignore: 'Ignore',
};

export const CUSTOM_TYPES = ['text', 'number', 'boolean'] as const;
export type CustomType = (typeof CUSTOM_TYPES)[number];

export interface ColumnMapping {
  header: string;
  target: FieldTarget;
  /** For a custom field: how its cells are read. */
  type: CustomType;
}

/** Headers as people write them, compared without case, spaces, dashes or underscores. */
const KNOWN_HEADERS: Record<string, Exclude<FieldTarget, 'custom' | 'ignore'>> = {
  email: 'email',
  emailaddress: 'email',
  mail: 'email',
  firstname: 'firstName',
  givenname: 'firstName',
  forename: 'firstName',
  first: 'firstName',
  lastname: 'lastName',
  surname: 'lastName',
  familyname: 'lastName',
  last: 'lastName',
  phone: 'phone',
  phonenumber: 'phone',
  mobile: 'phone',
  telephone: 'phone',
  tel: 'phone',
  tags: 'tags',
  tag: 'tags',
  labels: 'tags',
};

function normalised(header: string): string {
  return header.toLowerCase().replace(/[\s_\-.]/g, '');
}

/**
 * A mapping for each header: the known names map to their field (the first
 * column only, when two claim the same one), every other column becomes a
 * text custom field named by its header; a column without a header is ignored.
 *
 * `guessMapping(['E-mail', 'First_Name', 'plan'])` maps to email, firstName and a custom `plan`.
 */
export function guessMapping(headers: readonly string[]): ColumnMapping[] {
  const taken = new Set<FieldTarget>();
  return headers.map((header) => {
    const known = KNOWN_HEADERS[normalised(header)];
    if (known && !taken.has(known)) {
      taken.add(known);
      return { header, target: known, type: 'text' };
    }
    return { header, target: header.trim() === '' ? 'ignore' : 'custom', type: 'text' };
  });
}

/** The contact as sent: only the fields a cell gives; an empty cell sends nothing. */
export interface ImportContact {
  email: string;
  firstName?: string;
  lastName?: string;
  phone?: string;
  tags?: string[];
  customFields?: Record<string, string | number | boolean>;
}

export type MappedRow = { ok: true; contact: ImportContact } | { ok: false; email: string; reason: string };

const TRUE = new Set(['true', 'yes', 'y', '1']);
const FALSE = new Set(['false', 'no', 'n', '0']);

function customValue(cell: string, type: CustomType, header: string): string | number | boolean | { error: string } {
  if (type === 'text') return cell;
  if (type === 'number') {
    const number = Number(cell);
    return Number.isFinite(number) ? number : { error: `${header} must be a number, not "${cell}"` };
  }
  const word = cell.toLowerCase();
  if (TRUE.has(word)) return true;
  if (FALSE.has(word)) return false;
  return { error: `${header} must be true or false (yes/no, 1/0), not "${cell}"` };
}

/** `vip; beta,early` is three tags. */
export function splitTags(cell: string): string[] {
  return cell
    .split(/[,;]/)
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');
}

/**
 * One row (cells by header, as papaparse gives them) as a contact, or the
 * reason the API would refuse it, in the API's own words (`email must be a valid email address`).
 * Cells are text: a cell such as `=HYPERLINK(...)` is stored as those characters, never evaluated.
 */
export function rowToContact(row: Readonly<Record<string, string | undefined>>, mapping: readonly ColumnMapping[]): MappedRow {
  const contact: Record<string, unknown> = {};
  const customFields: Record<string, string | number | boolean> = {};
  let email = '';
  for (const column of mapping) {
    const cell = (row[column.header] ?? '').trim();
    if (column.target === 'email') email = cell;
    if (cell === '' || column.target === 'ignore') continue;
    if (column.target === 'tags') {
      const tags = splitTags(cell);
      if (tags.length > 0) contact.tags = [...((contact.tags as string[] | undefined) ?? []), ...tags];
    } else if (column.target === 'custom') {
      const value = customValue(cell, column.type, column.header);
      if (typeof value === 'object') return { ok: false, email, reason: value.error };
      customFields[column.header] = value;
    } else {
      contact[column.target] = cell;
    }
  }
  if (Object.keys(customFields).length > 0) contact.customFields = customFields;
  const checked = v.safeParse(importedContact, { email, ...contact }, { abortEarly: true });
  if (!checked.success) return { ok: false, email, reason: toValidationError(checked.issues[0]).message };
  // What was built is sent, not the schema's output: the API lower-cases and trims the address itself.
  return { ok: true, contact: { ...contact, email } as ImportContact };
}

/** Why the mapping cannot be imported yet, or undefined when it can. */
export function mappingProblem(mapping: readonly ColumnMapping[]): string | undefined {
  if (!mapping.some((column) => column.target === 'email')) return 'Choose the column that holds the email address.';
  const counts = new Map<FieldTarget, number>();
  for (const column of mapping) counts.set(column.target, (counts.get(column.target) ?? 0) + 1);
  for (const target of ['email', 'firstName', 'lastName', 'phone'] as const) {
    if ((counts.get(target) ?? 0) > 1) return `Only one column can be ${TARGET_LABELS[target]}.`;
  }
  return undefined;
}
