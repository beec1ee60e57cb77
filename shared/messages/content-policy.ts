/**
 * Where each message's content is kept, shared by the code that stores it
 * and the CDK construct whose lifecycle rule expires it; no configuration
 * here, so the stack can load it before any.
 */

/**
 * The prefix, in the region's attachments bucket, of every message's content
 * (`content/<account>/<email id>.json.gz`). Neither the uploads' rule (`acc_`)
 * nor the queued bodies' (`queued/`) matches it: its own rule expires it after
 * RETENTION_DAYS, the lifetime of the email record (lib/attachments-bucket.ts).
 */
export const EMAIL_CONTENT_PREFIX = 'content/';
