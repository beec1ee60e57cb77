/**
 * Uploaded attachments: a record in the table (what was declared) and an
 * object in the region's attachments bucket (what was uploaded), both named
 * from the caller's account, so an id of another account reaches nothing.
 */
import { GetObjectCommand, NoSuchKey, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { awsConnection, config } from '#shared/config.ts';
import { db, tableName } from './client.ts';
import { accountScoped } from './partition.ts';

export interface AttachmentRecord {
  attachmentId: string;
  filename: string;
  contentType: string;
  /** Declared at creation; the upload URL then signs this Content-Length. */
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
    attachmentId: item.attachmentId as string,
    filename: item.filename as string,
    contentType: item.contentType as string,
    ...(typeof item.size === 'number' ? { size: item.size } : {}),
    region: item.region as string,
    createdAt: item.createdAt as string,
    expiresAt: Number(item.expiresAt),
  };
}

export async function putAttachmentRecord(accountId: string, record: AttachmentRecord): Promise<void> {
  await db.send(new PutCommand({
    TableName: tableName,
    Item: { ...attachmentKey(accountId, record.attachmentId), entity: 'attachment', ...record },
    ConditionExpression: 'attribute_not_exists(pk)',
  }));
}

/** The record, unless unknown or expired (TTL deletes up to 48 hours late). */
export async function getAttachmentRecord(accountId: string, attachmentId: string, now: Date): Promise<AttachmentRecord | undefined> {
  // Consistent: a send may follow the create and the upload within a second.
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: attachmentKey(accountId, attachmentId), ConsistentRead: true }));
  if (!Item) return undefined;
  const record = toRecord(Item);
  return record.expiresAt * 1000 > now.getTime() ? record : undefined;
}

export const s3 = new S3Client({
  ...awsConnection(config.S3_ENDPOINT),
  ...(config.S3_ENDPOINT ? { forcePathStyle: true } : {}),
  // Otherwise the SDK signs a CRC32 of the (empty) body into every presigned PUT, and S3 refuses the real upload.
  requestChecksumCalculation: 'WHEN_REQUIRED',
  responseChecksumValidation: 'WHEN_REQUIRED',
});

/**
 * A pre-signed PUT of the attachment's object. Content-Type, and
 * Content-Length when the size was declared, are signed: S3 refuses an upload
 * that differs in either (the SDK leaves them unsigned unless told).
 */
export function presignAttachmentUpload(accountId: string, record: AttachmentRecord, expiresInSeconds: number): Promise<string> {
  const command = new PutObjectCommand({
    Bucket: config.ATTACHMENTS_BUCKET,
    Key: attachmentObjectKey(accountId, record.attachmentId),
    ContentType: record.contentType,
    ...(record.size === undefined ? {} : { ContentLength: record.size }),
  });
  const signed = record.size === undefined ? ['content-type'] : ['content-type', 'content-length'];
  return getSignedUrl(s3, command, { expiresIn: expiresInSeconds, signableHeaders: new Set(signed) });
}

export interface AttachmentObject {
  size: number;
  contentType: string | undefined;
  /** Absent when the object is larger than the reader asked for: its body is not read. */
  content?: Uint8Array;
}

/** The uploaded object, read only when at most `maxBytes`; undefined when nothing was uploaded. */
export async function getAttachmentObject(accountId: string, attachmentId: string, maxBytes: number): Promise<AttachmentObject | undefined> {
  let response;
  try {
    response = await s3.send(new GetObjectCommand({ Bucket: config.ATTACHMENTS_BUCKET, Key: attachmentObjectKey(accountId, attachmentId) }));
  } catch (error) {
    if (error instanceof NoSuchKey) return undefined;
    throw error;
  }
  const size = response.ContentLength ?? 0;
  const contentType = response.ContentType;
  if (size > maxBytes) {
    // Headers are enough to refuse it; drop the connection rather than download megabytes for nothing.
    (response.Body as { destroy?: () => void } | undefined)?.destroy?.();
    return { size, contentType };
  }
  const content = (await response.Body?.transformToByteArray()) ?? new Uint8Array();
  return { size, contentType, content };
}
