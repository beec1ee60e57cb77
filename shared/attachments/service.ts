/**
 * Attachments two ways: inline base64 in the send request (the spec's
 * Attachment object), or uploaded beforehand with POST /api/attachments and
 * referenced by id. Lambda takes at most 6 MB per request, so a 7 MB file
 * (9.3 MB in base64) can only come the second way; see docs/api.md, "Attachments".
 */
import { newId } from '#shared/platform/ids.ts';
import { getAttachmentObject, getAttachmentRecord, presignAttachmentUpload, putAttachmentRecord, type AttachmentRecord } from './store.ts';
import { config } from '#shared/platform/config.ts';
import { mimeEncodedSize } from './budget.ts';
import type { OutgoingAttachment } from './budget.ts';
import { notFound, PostlaneError, ValidationError } from '#shared/platform/errors.ts';
import type * as v from 'valibot';
import {
  ATTACHMENT_LIMITS,
  decodedBase64Size,
  type AttachmentInput,
  type attachmentUploadSchema,
  type CreateAttachmentInput,
  type InlineAttachmentInput,
} from './schema.ts';
import { findById } from '#shared/platform/lookup.ts';

/** How long an id can be referenced after creation; the bucket's lifecycle removes uploads after a day too. */
export const ATTACHMENT_LIFETIME_SECONDS = 24 * 60 * 60;
/** How long the upload URL works: long enough for a slow 7 MB upload, short enough that a leaked URL soon stops. */
export const UPLOAD_URL_SECONDS = 60 * 60;
/**
 * Room the message's headers and its HTML and text bodies take in SES's 40 MB
 * beside the attachments (content is at most 200,000 characters each, up to 4 bytes apiece).
 */
const MESSAGE_ROOM_BESIDE_ATTACHMENTS = 2 * 1024 * 1024;

/** PUT the file's bytes to `uploadUrl`, with exactly `headers`, before `uploadExpiresAt`; send requests may reference `id` until `expiresAt`. */
export type AttachmentUpload = v.InferOutput<typeof attachmentUploadSchema>;

function tooLarge(field: string, what: string): PostlaneError {
  return new PostlaneError('ATTACHMENT_TOO_LARGE', `${what} is larger than 7 MB`, { field });
}

/** POST /api/attachments: the record and a pre-signed PUT for the bytes. */
export async function createAttachment(accountId: string, input: CreateAttachmentInput, now: Date): Promise<AttachmentUpload> {
  if (input.size > ATTACHMENT_LIMITS.attachmentBytes) throw tooLarge('size', 'The attachment');
  const record: AttachmentRecord & { size: number } = {
    attachmentId: newId('att', now.getTime()),
    filename: input.filename,
    contentType: input.contentType,
    size: input.size,
    region: config.AWS_REGION,
    createdAt: now.toISOString(),
    expiresAt: Math.floor(now.getTime() / 1000) + ATTACHMENT_LIFETIME_SECONDS,
  };
  await putAttachmentRecord(accountId, record);
  const upload = await presignAttachmentUpload(accountId, record, UPLOAD_URL_SECONDS);
  return {
    id: record.attachmentId,
    filename: record.filename,
    contentType: record.contentType,
    size: record.size,
    uploadUrl: upload.url,
    method: 'PUT',
    // Content-Length is not listed: clients (fetch, browsers, curl) set it from the body, and may not set it by hand.
    headers: { 'Content-Type': record.contentType },
    // The URL's own end: sooner than UPLOAD_URL_SECONDS when the function's credentials expire first.
    uploadExpiresAt: upload.expiresAt.toISOString(),
    expiresAt: new Date(record.expiresAt * 1000).toISOString(),
  };
}

function decodeInline(attachment: InlineAttachmentInput, field: string): OutgoingAttachment {
  // Sized before decoding, so an oversized one costs no memory.
  if (decodedBase64Size(attachment.content) > ATTACHMENT_LIMITS.attachmentBytes) throw tooLarge(field, field);
  return { filename: attachment.filename, contentType: attachment.contentType, content: Buffer.from(attachment.content, 'base64') };
}

/** An uploaded attachment of the caller's account, checked against what was declared for it. */
async function loadUploaded(accountId: string, id: string, field: string, now: Date): Promise<OutgoingAttachment> {
  const idField = `${field}.id`;
  // Another account's id, a malformed one and an expired one all read as unknown.
  const record = await findById(
    'att',
    id,
    () => getAttachmentRecord(accountId, id, now),
    () => notFound.attachment(idField),
  );
  if (record.region !== config.AWS_REGION) {
    throw new ValidationError('VALIDATION_ERROR', `${idField} was uploaded in ${record.region}; send it through that region's API`, idField);
  }
  const object = await getAttachmentObject(accountId, id, ATTACHMENT_LIMITS.attachmentBytes);
  if (!object)
    throw new PostlaneError('ATTACHMENT_NOT_UPLOADED', `Nothing has been uploaded for ${idField} yet; PUT the file to its uploadUrl first`, { field: idField });
  if (!object.content) throw tooLarge(field, field);
  // S3 enforces both through the signed URL; checked again so nothing else (a local stand-in, a changed bucket) can differ.
  if (record.size !== undefined && object.size !== record.size) {
    throw new ValidationError('VALIDATION_ERROR', `${idField}: ${object.size} bytes were uploaded where ${record.size} were declared`, idField);
  }
  if (object.contentType !== record.contentType) {
    throw new ValidationError(
      'VALIDATION_ERROR',
      `${idField} was uploaded as ${object.contentType ?? 'no type'} where ${record.contentType} was declared`,
      idField,
    );
  }
  return { filename: record.filename, contentType: record.contentType, content: object.content };
}

/**
 * Every attachment of a send request, ready for the message: inline ones
 * decoded, uploaded ones read from the bucket. Refusals name the item:
 * ATTACHMENT_TOO_LARGE (400) on `attachments[i]`, ATTACHMENT_NOT_FOUND (404)
 * and ATTACHMENT_NOT_UPLOADED (409) on `attachments[i].id`; together they
 * must fit SES's 40 MB message (400 ATTACHMENT_TOO_LARGE on `attachments`).
 */
export async function resolveAttachments(accountId: string, attachments: readonly AttachmentInput[], now: Date): Promise<OutgoingAttachment[]> {
  // Inline ones first: a request that is refused for its own body reads nothing from S3.
  const inline = attachments.map((attachment, index) => ('content' in attachment ? decodeInline(attachment, `attachments[${index}]`) : undefined));
  const resolved = await Promise.all(
    attachments.map((attachment, index) => ('id' in attachment ? loadUploaded(accountId, attachment.id, `attachments[${index}]`, now) : inline[index]!)),
  );
  const total = resolved.reduce((sum, attachment) => sum + mimeEncodedSize(attachment.content.length), 0);
  if (total > ATTACHMENT_LIMITS.messageBytes - MESSAGE_ROOM_BESIDE_ATTACHMENTS) {
    throw new PostlaneError(
      'ATTACHMENT_TOO_LARGE',
      `The attachments come to ${total} bytes in the message; SES takes at most 40 MB per message, so about 28 MB of files in all`,
      { field: 'attachments' },
    );
  }
  return resolved;
}

/** What other areas build on from the store (its reads, and the parts their transactions write): through this service, never the store itself. */
export { attachmentsBucketObject } from './store.ts';
