import * as v from 'valibot';
import { headerText, strictObject } from '#shared/platform/schema/common.ts';
import { timestamp } from '#shared/platform/schema/replies.ts';

/** Limits of attachments, inline or uploaded (docs/api.md, "Attachments"); part of the send endpoints' limits. */
export const ATTACHMENT_LIMITS = {
  attachments: 10,
  /** Decoded size of one attachment. */
  attachmentBytes: 7 * 1024 * 1024,
  /**
   * SES v2's largest message, attachments base64-encoded: with headers and
   * bodies it allows about 28 MB of attachments per message in all.
   */
  messageBytes: 40 * 1024 * 1024,
  filename: 255,
  contentType: 255,
} as const;

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Line breaks, as MIME tools wrap base64 at 76 characters, are not part of the content. */
export function compactBase64(content: string): string {
  return content.replace(/[\r\n]/g, '');
}

/** Size in bytes of the data a base64 string holds, without decoding it. */
export function decodedBase64Size(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return (base64.length / 4) * 3 - padding;
}

const MEDIA_TYPE =
  /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*(?:\s*;\s*[A-Za-z0-9!#$&^_.+-]+=(?:[A-Za-z0-9!#$&^_.+-]+|"[^"\r\n]*"))*$/;

/** An attachment's name and media type, inline or declared for an upload (POST /api/attachments). */
export const attachmentFilename = v.pipe(
  headerText(ATTACHMENT_LIMITS.filename),
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this check refuses
  v.check((name) => !/[\\/\u0000-\u001f\u007f]/.test(name), 'must be a file name without path separators or control characters'),
);
export const attachmentContentType = v.optional(
  v.pipe(headerText(ATTACHMENT_LIMITS.contentType), v.regex(MEDIA_TYPE, 'must be a media type such as application/pdf')),
  'application/octet-stream',
);

/** The spec's Attachment object: the file itself, base64 in the request. */
export const attachment = strictObject({
  content: v.pipe(v.string(), v.transform(compactBase64), v.nonEmpty(), v.regex(BASE64, 'must be base64')),
  filename: attachmentFilename,
  contentType: attachmentContentType,
});
export type InlineAttachmentInput = v.InferOutput<typeof attachment>;

/** An upload made with POST /api/attachments, by its id; name and type are the ones declared there. */
export const attachmentReference = strictObject({
  id: v.pipe(v.string(), v.trim(), v.nonEmpty(), v.maxLength(64, 'must be at most 64 characters')),
});
export type AttachmentReferenceInput = v.InferOutput<typeof attachmentReference>;

/**
 * An item with `id` is a reference (and may hold nothing else); any other is
 * inline, validated as the spec's object. Choosing first lets an error name
 * the exact field, where a union would only say "matches neither". Asked
 * without an input (JSON never holds `undefined`: only the API description's
 * conversion asks so), it answers the union, so the document shows both forms.
 */
export const attachmentForms = v.pipe(
  v.union([attachment, attachmentReference]),
  // The title names the schema's component in the API description (a lazy schema has no name of its own).
  v.metadata({
    title: 'Email attachment',
    description: 'A file inline (`content`, base64, with `filename`) or an upload made with POST /api/attachments (`id` alone).',
  }),
);
export const sendAttachment = v.lazy((input) => {
  if (input === undefined) return attachmentForms;
  return typeof input === 'object' && input !== null && 'id' in input ? attachmentReference : attachment;
});
export type AttachmentInput = v.InferOutput<typeof sendAttachment>;

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
