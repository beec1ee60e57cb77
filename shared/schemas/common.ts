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

export interface Pagination {
  total: number;
  page: number;
  limit: number;
  pages: number;
}

export function pagination(total: number, page: number, limit: number): Pagination {
  return { total, page, limit, pages: Math.ceil(total / limit) };
}

/** Keys that would reach an object's prototype if some consumer merged them naively. */
export const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** Values for template variables: any JSON object (values may nest, for loops); arrays are not one. */
export const templateVariables = v.custom<Record<string, unknown>>(
  (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
  'must be an object',
);
