import * as v from 'valibot';
import { strictObject } from '#shared/platform/schema/common.ts';
import { attachmentContentType, attachmentFilename } from '#shared/sending/schema.ts';
import { timestamp } from '#shared/platform/schema/replies.ts';

/**
 * POST /api/attachments: what the upload will be, checked as an inline
 * attachment's name and type are. A `size` over 7 MB is refused by the domain
 * with ATTACHMENT_TOO_LARGE, as an inline attachment's is.
 */
export const createAttachmentBody = strictObject({
  filename: attachmentFilename,
  contentType: attachmentContentType,
  // Required: the upload URL signs it, so S3 refuses any other length (unsigned, a URL would take up to 5 GB).
  size: v.pipe(v.number(), v.integer('must be a whole number of bytes'), v.minValue(1, 'must be at least 1 byte')),
});
export type CreateAttachmentInput = v.InferOutput<typeof createAttachmentBody>;

// Replies.

/** POST /api/attachments: the id to reference in a send, and where to PUT the file. */
export const attachmentUploadSchema = v.strictObject({
  id: v.string(),
  filename: v.string(),
  contentType: v.string(),
  size: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
  uploadUrl: v.pipe(v.string(), v.url()),
  method: v.literal('PUT'),
  headers: v.record(v.string(), v.string()),
  uploadExpiresAt: timestamp,
  expiresAt: timestamp,
});
