import * as v from 'valibot';
import { strictObject } from '#shared/platform/schema/common.ts';

/** The preferences form: one button per audience (`audienceId` + `status`), or `status` alone for all of them. */
export const preferencesBody = strictObject({
  audienceId: v.optional(v.pipe(v.string(), v.trim(), v.nonEmpty(), v.maxLength(64))),
  status: v.picklist(['subscribed', 'unsubscribed'], 'must be subscribed or unsubscribed'),
});
export type PreferencesInput = v.InferOutput<typeof preferencesBody>;
