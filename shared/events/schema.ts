import * as v from 'valibot';
import { EVENT_TYPES } from './types.ts';
import { cursorQuery, dateRangeQuery } from '#shared/platform/schema/common.ts';
import { timestamp } from '#shared/platform/schema/replies.ts';

/** Every list of the message log: 20 a page by default, at most 100. */
export const LOG_PAGE = { defaultLimit: 20, maxLimit: 100 } as const;

export const eventSchema = v.strictObject({
  id: v.string(),
  type: v.string(),
  createdAt: timestamp,
  data: v.record(v.string(), v.unknown()),
});

export const listEventsQuery = v.object({
  type: v.optional(v.picklist(EVENT_TYPES, 'must be an event type of the catalogue')),
  ...dateRangeQuery,
  ...cursorQuery(LOG_PAGE.defaultLimit, LOG_PAGE.maxLimit),
});

export const emailEventsQuery = v.object({ ...cursorQuery(LOG_PAGE.defaultLimit, LOG_PAGE.maxLimit) });
