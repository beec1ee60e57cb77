import { isId, type IdPrefix } from './ids.ts';

/**
 * What `read` finds for an id, else the resource's NOT_FOUND (`missing`). An
 * id of another kind is never looked up, as it cannot exist; another account's
 * id answers like an unknown one, since `read` is scoped to the caller's.
 */
export async function findById<T>(prefix: IdPrefix, id: string, read: () => Promise<T | undefined>, missing: () => Error): Promise<T> {
  const found = isId(prefix, id) ? await read() : undefined;
  if (!found) throw missing();
  return found;
}
