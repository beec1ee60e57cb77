/**
 * The two rules by which a stored record becomes what the API answers: most
 * fields are shown as stored, and an optional field the record lacks is shown
 * as null (the replies never leave a field out).
 */

/** The record's `keys`, as stored. */
export function pick<T extends object, K extends keyof T>(record: T, ...keys: K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((key) => [key, record[key]])) as Pick<T, K>;
}

/** The record's optional `keys`, null where it has none. */
export function orNull<T extends object, K extends keyof T>(record: T, ...keys: K[]): { [P in K]-?: Exclude<T[P], undefined> | null } {
  return Object.fromEntries(keys.map((key) => [key, record[key] ?? null])) as { [P in K]-?: Exclude<T[P], undefined> | null };
}
