/**
 * Uploaded attachments: a record in the table (what was declared) and an
 * object in the region's attachments bucket (what was uploaded), both named
 * from the caller's account, so an id of another account reaches nothing.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { awsConnection, config } from '#shared/platform/config.ts';
import { getObject, presignPut, type S3Location, type SignedUpload, type StoredObject } from '#shared/platform/aws/s3.ts';
import { db, tableName } from '#shared/platform/dynamodb/client.ts';
import { accountScoped } from '#shared/platform/dynamodb/partition.ts';
import { strings } from '#shared/platform/dynamodb/attributes.ts';

export interface AttachmentRecord {
  attachmentId: string;
  filename: string;
  contentType: string;
  /** Declared at creation; the upload URL signs this Content-Length. Absent only on records made before it was required. */
  size?: number;
  /** The region whose bucket holds the upload: buckets are regional, the table is global. */
  region: string;
  createdAt: string;
  /** Epoch seconds: the TTL, and the end of the id's use in send requests. */
  expiresAt: number;
}

/** One partition per attachment: read only by id, like email records. */
const attachmentKey = (accountId: string, attachmentId: string) => ({ pk: accountScoped(accountId, 'ATT', attachmentId), sk: 'ATTACHMENT' });

/** The object's key in the bucket: the account first, as in the table. */
export const attachmentObjectKey = (accountId: string, attachmentId: string) => `${accountId}/${attachmentId}`;

function toRecord(item: Record<string, unknown>): AttachmentRecord {
  return {
    ...strings(item, 'attachmentId', 'filename', 'contentType', 'region', 'createdAt'),
    ...(typeof item.size === 'number' ? { size: item.size } : {}),
    expiresAt: Number(item.expiresAt),
  };
}

export async function putAttachmentRecord(accountId: string, record: AttachmentRecord): Promise<void> {
  await db.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...attachmentKey(accountId, record.attachmentId), entity: 'attachment', ...record },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

/** The record, unless unknown or expired (TTL deletes up to 48 hours late). */
export async function getAttachmentRecord(accountId: string, attachmentId: string, now: Date): Promise<AttachmentRecord | undefined> {
  // Consistent: a send may follow the create and the upload within a second.
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: attachmentKey(accountId, attachmentId), ConsistentRead: true }));
  if (!Item) return undefined;
  const record = toRecord(Item);
  return record.expiresAt * 1000 > now.getTime() ? record : undefined;
}

/** An object of the region's attachments bucket, or of the local S3. */
export function attachmentsBucketObject(key: string): S3Location {
  const { region, endpoint, credentials } = awsConnection(config.S3_ENDPOINT);
  return { region, bucket: config.ATTACHMENTS_BUCKET, key, ...(endpoint ? { endpoint } : {}), ...(credentials ? { credentials } : {}) };
}

const objectLocation = (accountId: string, attachmentId: string) => attachmentsBucketObject(attachmentObjectKey(accountId, attachmentId));

/**
 * A pre-signed PUT of the attachment's object, signing its Content-Type and
 * Content-Length: S3 refuses an upload that differs in either.
 */
export function presignAttachmentUpload(accountId: string, record: AttachmentRecord & { size: number }, expiresInSeconds: number): Promise<SignedUpload> {
  return presignPut(objectLocation(accountId, record.attachmentId), { contentType: record.contentType, contentLength: record.size, expiresInSeconds });
}

/** The uploaded object, read only when at most `maxBytes`; undefined when nothing was uploaded. */
export function getAttachmentObject(accountId: string, attachmentId: string, maxBytes: number): Promise<StoredObject | undefined> {
  return getObject(objectLocation(accountId, attachmentId), maxBytes);
}
