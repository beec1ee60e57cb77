import * as v from 'valibot';

/** Longest address RFC 5321 lets through a mail transfer. */
export const MAX_EMAIL_LENGTH = 254;

/** An email address, trimmed and lower-cased: contacts compare addresses case-insensitively. */
export const emailAddress = v.pipe(
  v.string(),
  v.trim(),
  v.nonEmpty(),
  v.maxLength(MAX_EMAIL_LENGTH, `must be at most ${MAX_EMAIL_LENGTH} characters`),
  v.email(),
  v.toLowerCase(),
);

/** A line break in a header value would start a header of the caller's choosing. */
export function isHeaderSafe(value: string): boolean {
  return !/[\r\n]/.test(value);
}

/**
 * A rule across fields, reported at `field`: missing there (400
 * MISSING_REQUIRED_FIELD) when that field is absent, else 422
 * VALIDATION_ERROR. Runs once the fields themselves are valid. The message
 * follows the field's path: `content is required when templateId is absent`.
 *
 * `v.pipe(strictObject({ to, email }), fieldRule('to', (input) => input.to !== undefined || input.email !== undefined, 'is required'))`
 */
export function fieldRule<T extends Record<string, unknown>>(field: keyof T & string, holds: (input: T) => boolean, message: v.ErrorMessage<v.CheckIssue<T>>) {
  return v.forward<T, v.CheckIssue<T>, [string]>(v.check<T, v.ErrorMessage<v.CheckIssue<T>>>(holds, message), [field] as never);
}

/** A required text field: blank counts as missing. */
export function requiredText(maxLength: number) {
  return v.pipe(v.string(), v.trim(), v.nonEmpty(), v.maxLength(maxLength, `must be at most ${maxLength} characters`));
}

export function optionalText(maxLength: number) {
  return v.optional(v.pipe(v.string(), v.trim(), v.maxLength(maxLength, `must be at most ${maxLength} characters`)));
}

/** A whole number from a query string parameter, within [min, max]. */
function integerParam(defaultValue: number, min: number, max: number) {
  return v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,9}$/, `must be a whole number from ${min} to ${max}`),
      v.transform(Number),
      v.minValue(min, `must be a whole number from ${min} to ${max}`),
      v.maxValue(max, `must be a whole number from ${min} to ${max}`),
    ),
    String(defaultValue),
  );
}

/** `page` (from 1) and `limit` (1..max) query parameters, as every list takes them. */
export function paginationQuery(defaultLimit: number, maxLimit: number) {
  return {
    page: integerParam(1, 1, 1_000_000),
    limit: integerParam(defaultLimit, 1, maxLimit),
  };
}

/**
 * `limit` (1..max) and `cursor`: the lists that grow without bound (the
 * message log, webhook deliveries) page by an opaque cursor instead of `page`.
 */
export function cursorQuery(defaultLimit: number, maxLimit: number) {
  return {
    limit: integerParam(defaultLimit, 1, maxLimit),
    cursor: v.optional(v.pipe(v.string(), v.nonEmpty(), v.maxLength(2048, 'must be a cursor a previous page returned'))),
  };
}

export function isCalendarDate(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(value);
  if (!match) return false;
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === match[0];
}

/** An ISO 8601 date or date-time; a date alone means its whole UTC day (start of day for startDate, end for endDate). */
const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2}))?$/;
export const isoDate = v.pipe(
  v.string(),
  v.trim(),
  v.regex(ISO_8601, 'must be an ISO 8601 date (2026-11-21) or date-time (2026-11-21T16:30:00Z)'),
  v.check((value) => isCalendarDate(value) && !Number.isNaN(Date.parse(value.length === 10 ? `${value}T00:00:00Z` : value)), 'must be a real date'),
);

/** An `isoDate` as an instant: a bare date is the first (`endOfDay` false) or last millisecond of its UTC day. */
export function instantOf(value: string, endOfDay: boolean): Date {
  return new Date(value.length === 10 ? `${value}T${endOfDay ? '23:59:59.999' : '00:00:00.000'}Z` : value);
}

/** `startDate` and `endDate`, inclusive, as instants. */
export const dateRangeQuery = {
  startDate: v.optional(
    v.pipe(
      isoDate,
      v.transform((value) => instantOf(value, false)),
    ),
  ),
  endDate: v.optional(
    v.pipe(
      isoDate,
      v.transform((value) => instantOf(value, true)),
    ),
  ),
};

export interface Pagination {
  total: number;
  page: number;
  limit: number;
  pages: number;
  /** A filtered list counts at most a bounded number of items: `total` is that many, not all matches. */
  truncated?: true;
}

/** A page of a list as the domain returns it, `listReply(name, item)`'s view: `ListPage<'contacts', ContactListItem>`. */
export type ListPage<N extends string, T> = { [K in N]: T[] } & { pagination: Pagination };

/** One page of `limit` out of `total`; `truncated` when a bounded filter stopped counting. */
export function pagination(total: number, page: number, limit: number, truncated = false): Pagination {
  return { total, page, limit, pages: Math.ceil(total / limit), ...(truncated ? { truncated } : {}) };
}

/** Keys that would reach an object's prototype if some consumer merged them naively. */
export const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

const RESERVED_KEY_MESSAGE = 'this key is reserved (__proto__, constructor and prototype are refused)';

type Issues = [v.IssuePathItem, ...v.IssuePathItem[]];

/**
 * valibot's object and record schemas take an array as an object keyed "0",
 * "1"… (open-circle/valibot#1630, labelled intended), so `settings: []` would
 * be stored as `{}`; and a record drops `__proto__`, `constructor` and
 * `prototype` keys without a word. This wrapper refuses both before the
 * library's own schema runs, which stays as it was for everything else: the
 * OpenAPI document and the fuzzer read the same `type` and `entries`.
 */
function guarded<S extends v.GenericSchema>(schema: S, refuseReservedKeys: boolean): S {
  const run = schema['~run'].bind(schema);
  const context = schema as unknown as Parameters<typeof v._addIssue>[0];
  return v._standardSchema({
    ...schema,
    '~run'(dataset: v.UnknownDataset, config: v.Config<v.BaseIssue<unknown>>) {
      const input = dataset.value;
      if (Array.isArray(input)) {
        v._addIssue(context, 'type', dataset, config, { received: 'Array', message: 'must be an object, not an array' });
        return dataset;
      }
      const reserved = refuseReservedKeys && isPlainObject(input) ? Object.keys(input).find((key) => RESERVED_KEYS.has(key)) : undefined;
      if (reserved !== undefined) {
        const path: Issues = [
          { type: 'object', origin: 'key', input: input as Record<string, unknown>, key: reserved, value: (input as Record<string, unknown>)[reserved] },
        ];
        v._addIssue(context, 'key', dataset, config, { input: reserved, message: RESERVED_KEY_MESSAGE, path });
        return dataset;
      }
      return run(dataset, config);
    },
  } as S);
}

/** `v.strictObject` that refuses an array (422 naming the field) instead of reading it as an object. */
export function strictObject<const E extends v.ObjectEntries>(entries: E): v.StrictObjectSchema<E, undefined> {
  return guarded(v.strictObject(entries), false);
}

/**
 * A free map (`customFields`, a submission): `v.record` that refuses an array
 * and the reserved keys, each 422 naming the field or the key.
 */
export function freeMap<const K extends v.BaseSchema<string, string, v.BaseIssue<unknown>>, const T extends v.GenericSchema>(
  key: K,
  value: T,
): v.RecordSchema<K, T, undefined> {
  return guarded(v.record(key, value), true);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Deepest nesting template variables may have: loops over arrays of objects
 * need a few levels; past this a body is an attack on whatever walks it
 * (payload hashing for idempotency, rendering), not data.
 */
export const MAX_VARIABLE_DEPTH = 32;

/**
 * Where `value` breaks the free-map rules at any depth: a reserved key, or
 * nesting past MAX_VARIABLE_DEPTH. Walked with an explicit stack, so a
 * hostile depth cannot overflow the call stack here.
 */
function freeValueDefect(value: unknown): { path: v.IssuePathItem[]; message: string; input: unknown } | undefined {
  const stack: { node: unknown; path: v.IssuePathItem[] }[] = [{ node: value, path: [] }];
  while (stack.length > 0) {
    const { node, path } = stack.pop()!;
    if (path.length > MAX_VARIABLE_DEPTH) return { path, message: `must nest at most ${MAX_VARIABLE_DEPTH} levels deep`, input: node };
    if (Array.isArray(node)) {
      for (const [index, item] of node.entries())
        stack.push({ node: item, path: [...path, { type: 'array', origin: 'value', input: node, key: index, value: item }] });
    } else if (isPlainObject(node)) {
      for (const [key, item] of Object.entries(node)) {
        const step: v.IssuePathItem = { type: 'object', origin: RESERVED_KEYS.has(key) ? 'key' : 'value', input: node, key, value: item };
        if (RESERVED_KEYS.has(key)) return { path: [...path, step], message: RESERVED_KEY_MESSAGE, input: key };
        stack.push({ node: item, path: [...path, step] });
      }
    }
  }
  return undefined;
}

/**
 * Values for template variables: any JSON object (values may nest, for
 * loops); arrays are not one, reserved keys are refused at every depth, and
 * nesting is bounded.
 */
export const templateVariables = v.pipe(
  v.custom<Record<string, unknown>>(isPlainObject, 'must be an object'),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const defect = freeValueDefect(dataset.value);
    // Never empty: a defect is a key or a level below the variables themselves.
    if (defect) addIssue({ ...defect, path: defect.path as Issues });
  }),
);

const noLineBreaks = v.check(isHeaderSafe, 'must not contain line breaks');

/** A header-bound text: line breaks refused before trimming, so none can hide at either end. */
export function headerText(maxLength: number) {
  return v.pipe(v.string(), noLineBreaks, v.trim(), v.nonEmpty(), v.maxLength(maxLength, `must be at most ${maxLength} characters`));
}
