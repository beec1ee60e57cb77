import * as v from 'valibot';
import { optionalText, paginationQuery, requiredText, strictObject } from '#shared/platform/schema/common.ts';
import { CONTACT_STATUSES } from './contact-status.ts';
import { count, nullableText, timestamp } from '#shared/platform/schema/replies.ts';

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

// Replies.

export const audienceSchema = v.strictObject({
  id: v.string(),
  name: v.string(),
  description: nullableText,
  count,
  createdAt: timestamp,
  updatedAt: timestamp,
});

export const audienceListItemSchema = v.strictObject({
  id: v.string(),
  name: v.string(),
  description: nullableText,
  count,
  createdAt: timestamp,
});

export const audienceStatsSchema = v.strictObject({
  total: count,
  ...(Object.fromEntries(CONTACT_STATUSES.map((status) => [status, count])) as Record<(typeof CONTACT_STATUSES)[number], typeof count>),
  growthRate: v.number(),
});
