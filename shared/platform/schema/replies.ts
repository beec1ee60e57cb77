/**
 * What every reply shares: the envelopes of one resource, of a page of a list
 * and of a removal. Each area's reply schemas sit beside its request schemas
 * (shared/<area>/schema.ts); the OpenAPI document is generated from them and
 * the test suite checks every response it receives against them, so a reply
 * that drifts from its description fails a test. Strict objects: a field
 * added to a reply must be described too.
 */
import * as v from 'valibot';

export const timestamp = v.pipe(v.string(), v.isoTimestamp());
export const nullableText = v.nullable(v.string());
export const count = v.pipe(v.number(), v.integer(), v.minValue(0));

export const pagination = v.strictObject({
  total: count,
  page: v.pipe(v.number(), v.integer(), v.minValue(1)),
  limit: v.pipe(v.number(), v.integer(), v.minValue(1)),
  pages: count,
  /** Filtered contact lists count at most a bounded number of items. */
  truncated: v.optional(v.literal(true)),
});

/** `{success: true, data}`: one resource. */
export function dataReply<T extends v.GenericSchema>(data: T) {
  return v.strictObject({ success: v.literal(true), data });
}

/** `{success: true, <name>: [...], pagination}`: one page of a list. */
export function listReply<const N extends string, T extends v.GenericSchema>(name: N, item: T) {
  return v.strictObject({ success: v.literal(true), [name]: v.array(item), pagination } as {
    success: v.LiteralSchema<true, undefined>;
    pagination: typeof pagination;
  } & { [K in N]: v.ArraySchema<T, undefined> });
}

/** `{success: true, message}`: a removal. */
export const deletedReply = v.strictObject({ success: v.literal(true), message: v.string() });

/** Where a cursor-paged list goes on: `nextCursor` is null on its last page. */
export const cursorPagination = v.strictObject({
  limit: v.pipe(v.number(), v.integer(), v.minValue(1)),
  nextCursor: nullableText,
});

/** `{success: true, <name>: [...], pagination: {limit, nextCursor}}`: one page of a list that grows without bound. */
export function cursorListReply<const N extends string, T extends v.GenericSchema>(name: N, item: T) {
  return v.strictObject({ success: v.literal(true), [name]: v.array(item), pagination: cursorPagination } as {
    success: v.LiteralSchema<true, undefined>;
    pagination: typeof cursorPagination;
  } & { [K in N]: v.ArraySchema<T, undefined> });
}
