import * as v from 'valibot';
import { ValidationError } from '#shared/platform/errors.ts';

/** `[{key:'contacts'},{key:12},{key:'email'}]` becomes `contacts[12].email`. */
export function fieldPath(path: readonly { key: unknown }[] | undefined): string {
  let out = '';
  for (const item of path ?? []) {
    out += typeof item.key === 'number' ? `[${item.key}]` : `${out ? '.' : ''}${String(item.key)}`;
  }
  return out;
}

/**
 * Maps the first valibot issue to the product's codes: a missing (or blank
 * required) value is MISSING_REQUIRED_FIELD, a malformed address INVALID_EMAIL,
 * anything else VALIDATION_ERROR; `field` always names the input.
 */
export function toValidationError(issue: v.BaseIssue<unknown>, prefix = ''): ValidationError {
  const inner = fieldPath(issue.path);
  const field = prefix && inner ? `${prefix}.${inner}` : prefix || inner || 'body';
  if (issue.type === 'strict_object' && issue.expected === 'never') {
    return new ValidationError('VALIDATION_ERROR', `${field} is not a known field`, field);
  }
  // A rule across fields (v.forward) names the field it is about; that field's value is the path's last.
  const crossField = issue.type === 'check' && issue.path !== undefined;
  if (crossField && issue.path!.at(-1)?.value === undefined) {
    return new ValidationError('MISSING_REQUIRED_FIELD', `${field} ${issue.message}`, field);
  }
  if (issue.input === undefined || issue.type === 'non_empty') {
    return new ValidationError('MISSING_REQUIRED_FIELD', `${field} is required`, field);
  }
  if (issue.type === 'email') {
    return new ValidationError('INVALID_EMAIL', `${field} must be a valid email address`, field);
  }
  return new ValidationError('VALIDATION_ERROR', `${field}: ${issue.message}`, field);
}

/** Validates `input`, returning the schema's output or throwing the mapped ValidationError. */
export function parseInput<S extends v.GenericSchema>(schema: S, input: unknown, prefix = ''): v.InferOutput<S> {
  const result = v.safeParse(schema, input, { abortEarly: true });
  if (result.success) return result.output;
  throw toValidationError(result.issues[0], prefix);
}
