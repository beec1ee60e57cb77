import * as v from 'valibot';
import { optionalText, paginationQuery, requiredText, strictObject } from './common.ts';

export const AUDIENCE_LIMITS = { name: 256, description: 2000 } as const;

export const createAudienceBody = strictObject({
  name: requiredText(AUDIENCE_LIMITS.name),
  description: optionalText(AUDIENCE_LIMITS.description),
});
export type CreateAudienceInput = v.InferOutput<typeof createAudienceBody>;

/** `description: null` clears it. */
export const updateAudienceBody = strictObject({
  name: v.optional(requiredText(AUDIENCE_LIMITS.name)),
  description: v.optional(v.nullable(v.pipe(v.string(), v.trim(), v.maxLength(AUDIENCE_LIMITS.description)))),
});
export type UpdateAudienceInput = v.InferOutput<typeof updateAudienceBody>;

export const listAudiencesQuery = v.object(paginationQuery(20, 100));
