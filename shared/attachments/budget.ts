/**
 * What attachments cost a message and a sending function. Kept apart from the
 * upload path's S3 code: every send path uses this, and a function that sends
 * only OTP or transactional mail should not load the code that reads uploads.
 */

/** An attachment as the transport puts it in a message: decoded, named and typed. */
export interface OutgoingAttachment {
  filename: string;
  content: Uint8Array;
  contentType: string;
}

/** Bytes an attachment takes in the MIME message: base64 in lines of 76 characters and CRLF. */
export function mimeEncodedSize(bytes: number): number {
  const base64 = Math.ceil(bytes / 3) * 4;
  return base64 + Math.ceil(base64 / 76) * 2;
}

/**
 * Attachment bytes the messages in flight to SES may hold together. Each
 * SendEmail request holds its attachments about 1.4 times over (base64 in the
 * JSON body; measured: +20 MB per message of 14 MB), beside the decoded files
 * and the runtime in a 512 MB function: 128 MB keeps 10 messages of 7 MB in
 * flight, and 4 of 28 MB.
 */
const ATTACHMENT_BYTES_IN_FLIGHT = 128 * 1024 * 1024;

/** How many messages carrying `attachments` may be sent at once, at most `limit`. */
export function sendConcurrency(attachments: readonly OutgoingAttachment[], limit: number): number {
  const bytes = attachments.reduce((sum, attachment) => sum + attachment.content.length, 0);
  return bytes === 0 ? limit : Math.max(1, Math.min(limit, Math.floor(ATTACHMENT_BYTES_IN_FLIGHT / bytes)));
}
