/**
 * Bodies of throttled messages too large for one SQS message (1 MiB: a few
 * attachments do it), kept in the region's attachments bucket under
 * `queued/<account>/<email id>.json` while the retry queue carries a pointer.
 * Named from the account and the email record, so a retry of the same message
 * overwrites rather than piles up; the bucket's lifecycle deletes them once no
 * queue can hold their pointer (lib/attachments-bucket.ts).
 */
import { getObject, putObject } from '#shared/platform/aws/s3.ts';
import { QUEUED_MESSAGES_PREFIX } from './retry-policy.ts';
import { attachmentsBucketObject } from '#shared/attachments/service.ts';

export const queuedMessageKey = (accountId: string, emailId: string) => `${QUEUED_MESSAGES_PREFIX}${accountId}/${emailId}.json`;

/** Stores the queue body where the pointer's account and email id find it. */
export function storeQueuedMessage(accountId: string, emailId: string, body: string): Promise<void> {
  return putObject(attachmentsBucketObject(queuedMessageKey(accountId, emailId)), Buffer.from(body, 'utf8'), 'application/json');
}

/** Far above any body a send can make (10 attachments of 7 MB in base64, and the HTML): a guard, not a limit. */
const MAX_STORED_BODY_BYTES = 128 * 1024 * 1024;

/** The stored body of this account's message, or undefined when it is gone. */
export async function readQueuedMessage(accountId: string, emailId: string): Promise<string | undefined> {
  const object = await getObject(attachmentsBucketObject(queuedMessageKey(accountId, emailId)), MAX_STORED_BODY_BYTES);
  return object?.content ? Buffer.from(object.content).toString('utf8') : undefined;
}
