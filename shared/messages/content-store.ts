/**
 * Each message's content as it was handed to SES (subject, addresses, the
 * headers Postlane set, the text and HTML parts, the attachments' names,
 * types and sizes, never their bytes), one gzipped JSON object per email in
 * the region's attachments bucket, under `content/<account>/<email id>.json.gz`.
 * Named from the account and the email id, so another account's id reaches
 * nothing and a second write of the same message overwrites the first; the
 * bucket's lifecycle removes it after RETENTION_DAYS, as the table's TTL
 * removes the record (lib/attachments-bucket.ts).
 */
import { getObject, putObject } from '#shared/platform/aws/s3.ts';
import { attachmentsBucketObject } from '#shared/attachments/service.ts';
import type * as v from 'valibot';
import { EMAIL_CONTENT_PREFIX } from './content-policy.ts';
import type { emailContentSchema } from './schema.ts';

export type EmailContent = v.InferOutput<typeof emailContentSchema>;

export const emailContentKey = (accountId: string, emailId: string) => `${EMAIL_CONTENT_PREFIX}${accountId}/${emailId}.json.gz`;

/** Far above any stored content (a rendered body is at most a few MB of text, which gzip shrinks): a guard, not a limit. */
const MAX_STORED_CONTENT_BYTES = 64 * 1024 * 1024;

/**
 * Loaded on first use, not imported: the function bundles alias `node:zlib`
 * to a CRC32 stand-in (shared/platform/aws/zlib-crc32.ts) so that it is not
 * loaded at every cold start.
 */
const zlib = () => process.getBuiltinModule('node:zlib');

function gzipped(text: string): Promise<Buffer> {
  return new Promise((resolve, reject) => zlib().gzip(text, (error, result) => (error ? reject(error) : resolve(result))));
}

function gunzipped(bytes: Uint8Array): Promise<string> {
  return new Promise((resolve, reject) => zlib().gunzip(bytes, (error, result) => (error ? reject(error) : resolve(result.toString('utf8')))));
}

export async function putEmailContent(accountId: string, emailId: string, content: EmailContent): Promise<void> {
  await putObject(attachmentsBucketObject(emailContentKey(accountId, emailId)), await gzipped(JSON.stringify(content)), 'application/gzip');
}

/** The content kept for this account's email, or undefined when there is none (never stored, or expired). */
export async function getEmailContent(accountId: string, emailId: string): Promise<EmailContent | undefined> {
  const object = await getObject(attachmentsBucketObject(emailContentKey(accountId, emailId)), MAX_STORED_CONTENT_BYTES);
  return object?.content ? (JSON.parse(await gunzipped(object.content)) as EmailContent) : undefined;
}
