// The list query apart from the template bodies, which check template syntax with the engine: listing needs none of it.
import * as v from 'valibot';
import { paginationQuery } from '#shared/platform/schema/common.ts';

/** Characters of a name search. */
export const TEMPLATE_SEARCH_MAX = 256;

export const listTemplatesQuery = v.object({
  search: v.optional(v.pipe(v.string(), v.trim(), v.nonEmpty(), v.maxLength(TEMPLATE_SEARCH_MAX))),
  ...paginationQuery(20, 100),
});
export type ListTemplatesQuery = v.InferOutput<typeof listTemplatesQuery>;
