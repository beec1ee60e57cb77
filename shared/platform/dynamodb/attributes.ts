/**
 * Reading an item back into its entity's record. Each store module is the only
 * writer of its items, so attributes are taken as stored rather than parsed
 * again; these name them once instead of casting each one.
 */

/** The named string attributes: `strings(item, 'keyId', 'name')` is `{ keyId, name }`. */
export function strings<const K extends string>(item: Record<string, unknown>, ...names: K[]): Record<K, string> {
  return Object.fromEntries(names.map((name) => [name, item[name]])) as Record<K, string>;
}

/** The named optional string attributes the item has; one it lacks is left out of the record. */
export function optionalStrings<const K extends string>(item: Record<string, unknown>, ...names: K[]): Partial<Record<K, string>> {
  return Object.fromEntries(names.filter((name) => typeof item[name] === 'string').map((name) => [name, item[name]])) as Partial<Record<K, string>>;
}
