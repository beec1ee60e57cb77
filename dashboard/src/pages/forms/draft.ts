/**
 * A form as the builder holds it while a person edits: every value as typed
 * (an option list as lines of text), turned into the API's body only to save,
 * so nothing typed is lost whatever the API answers.
 */
import { CHOICE_TYPES, type FieldType } from '#shared/forms/schema.ts';
import type { paths } from '../../api/client.ts';

export type Form = paths['/api/forms/{id}']['get']['responses']['200']['content']['application/json']['data'];

export const TYPE_NAMES: Record<FieldType, string> = {
  text: 'Text',
  email: 'Email',
  number: 'Number',
  textarea: 'Long text',
  select: 'Select',
  checkbox: 'Checkboxes',
  radio: 'Radio buttons',
  date: 'Date',
  phone: 'Phone',
  file: 'File',
  rating: 'Rating (1 to 5)',
};

export interface DraftField {
  /** Made here, so a row keeps its identity (and focus) through moves; never sent. */
  key: number;
  id: string;
  type: FieldType;
  label: string;
  placeholder: string;
  required: boolean;
  /** One option a line, as typed. */
  options: string;
}

export interface Draft {
  title: string;
  description: string;
  slug: string;
  published: boolean;
  fields: DraftField[];
  successMessage: string;
  notifyEmail: string;
  /** The sender of the form's emails, `Name <address>` or an address; `''` for the account's default. */
  from: string;
  enableCaptcha: boolean;
  storeResponses: boolean;
  doubleOptIn: boolean;
  /** `''` for none. */
  audienceId: string;
  backgroundColor: string;
  primaryColor: string;
  fontFamily: string;
  buttonText: string;
  buttonVariant: 'filled' | 'outline' | 'ghost';
}

let nextKey = 1;

export const isChoice = (type: FieldType) => CHOICE_TYPES.includes(type);

/** A new field of `type` whose key is not yet taken by `fields`: `email`, then `email2`, … */
export function newField(type: FieldType, fields: readonly DraftField[]): DraftField {
  const taken = new Set(fields.map((field) => field.id));
  let id: string = type;
  for (let n = 2; taken.has(id); n++) id = `${type}${n}`;
  return { key: nextKey++, id, type, label: TYPE_NAMES[type], placeholder: '', required: false, options: isChoice(type) ? 'Option 1\nOption 2' : '' };
}

export const EMPTY_DRAFT: Omit<Draft, 'fields'> = {
  title: '',
  description: '',
  slug: '',
  published: false,
  successMessage: 'Thank you! Your submission has been received.',
  notifyEmail: '',
  from: '',
  enableCaptcha: false,
  storeResponses: true,
  doubleOptIn: false,
  audienceId: '',
  backgroundColor: '#ffffff',
  primaryColor: '#2563eb',
  fontFamily: 'system-ui, sans-serif',
  buttonText: 'Submit',
  buttonVariant: 'filled',
};

export function newDraft(): Draft {
  return { ...EMPTY_DRAFT, fields: [{ ...newField('email', []), label: 'Email', required: true }] };
}

export function draftOf(form: Form): Draft {
  return {
    title: form.title,
    description: form.description ?? '',
    slug: form.slug,
    published: form.published,
    fields: form.fields.map((field) => ({
      key: nextKey++,
      id: field.id,
      type: field.type as FieldType,
      label: field.label,
      placeholder: field.placeholder ?? '',
      required: field.required,
      options: (field.options ?? []).join('\n'),
    })),
    successMessage: form.settings.successMessage,
    notifyEmail: form.settings.notifyEmail ?? '',
    from: form.settings.from ?? '',
    enableCaptcha: form.settings.enableCaptcha,
    storeResponses: form.settings.storeResponses,
    doubleOptIn: form.settings.doubleOptIn,
    audienceId: form.audienceId ?? '',
    backgroundColor: form.appearance.backgroundColor,
    primaryColor: form.appearance.primaryColor,
    fontFamily: form.appearance.fontFamily,
    buttonText: form.buttonCustomization.text,
    buttonVariant: form.buttonCustomization.variant as Draft['buttonVariant'],
  };
}

/** The lines of an option list, trimmed, blank lines dropped (a trailing newline is not an option). */
export const optionLines = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');

/**
 * The body of a create (`saved` false) or an update: on update an emptied
 * optional value is `null` (the API clears it), on create it is left out.
 */
export function formBody(draft: Draft, saved: boolean) {
  const cleared = <T>(value: T | '') => (value === '' ? (saved ? null : undefined) : value);
  const body = {
    title: draft.title,
    description: cleared(draft.description.trim()),
    slug: draft.slug.trim() === '' ? undefined : draft.slug.trim(),
    published: draft.published,
    fields: draft.fields.map((field) => ({
      id: field.id.trim(),
      type: field.type,
      label: field.label,
      ...(field.placeholder.trim() ? { placeholder: field.placeholder } : {}),
      required: field.required,
      ...(isChoice(field.type) ? { options: optionLines(field.options) } : {}),
    })),
    settings: {
      successMessage: draft.successMessage,
      notifyEmail: cleared(draft.notifyEmail.trim()),
      from: cleared(draft.from.trim()),
      enableCaptcha: draft.enableCaptcha,
      storeResponses: draft.storeResponses,
      doubleOptIn: draft.doubleOptIn,
    },
    audienceId: cleared(draft.audienceId),
    appearance: { backgroundColor: draft.backgroundColor, primaryColor: draft.primaryColor, fontFamily: draft.fontFamily },
    buttonCustomization: { text: draft.buttonText, variant: draft.buttonVariant },
  };
  // JSON drops the `undefined`s; the schema check and the API then see the same body.
  return JSON.parse(JSON.stringify(body)) as Record<string, unknown>;
}
