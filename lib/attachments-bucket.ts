import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { BlockPublicAccess, Bucket, BucketEncryption, HttpMethods, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { EXPORT_DAYS, EXPORTS_PREFIX } from '#shared/contacts/export-policy.ts';
import { QUEUED_MESSAGES_PREFIX } from '#shared/sending/retry-policy.ts';
import { EMAIL_CONTENT_PREFIX } from '#shared/messages/content-policy.ts';
import { acknowledgeFindings } from './nag.ts';
import { MESSAGE_LIFETIME } from './queue-retention.ts';

/** Uploads are kept a day: attachment ids stop working after 24 hours (shared/attachments/service.ts). */
export const ATTACHMENT_UPLOAD_DAYS = 1;

/**
 * Every upload's key starts with its account id (shared/attachments/store.ts),
 * and every account id with `acc_` (shared/platform/ids.ts): the uploads' rule filters
 * on it, so that its day never reaches the queued bodies beside them (S3
 * applies the shorter of two expirations that match an object).
 */
export const UPLOAD_KEYS_PREFIX = 'acc_';

/**
 * Days a throttled message's body is kept under `queued/`: as long as a
 * pointer to it may be on the retry queue or its dead-letter queue
 * (MESSAGE_LIFETIME, from the queues' retention), so that `admin retry
 * replay` finds every body whose dead letter SQS still keeps. S3 counts from
 * the body's upload, just before the message is sent, and rounds up to the
 * next midnight UTC, so it never removes one early.
 */
export const QUEUED_BODY_DAYS = Math.ceil(MESSAGE_LIFETIME.toDays({ integral: false }));

/**
 * This region's bucket of attachment uploads (POST /api/attachments hands out
 * pre-signed PUTs into it; the send endpoint reads them back), of the
 * bodies of throttled messages too large for the retry queue, of audience
 * exports (CSV files behind a presigned GET, kept a day), and of every sent
 * message's content (GET /api/emails/:id/content). Private,
 * encrypted with S3-managed keys (a pre-signed PUT needs no KMS grant),
 * HTTPS only; lifecycle removes each upload a day after it was made, each
 * queued body once no queue can hold its pointer, and each message's
 * content after RETENTION_DAYS, with its record.
 *
 * Destroyed with the stack. CloudFormation cannot delete a bucket that still
 * has objects, so a stack deleted while it holds any leaves it to be emptied
 * and deleted by hand.
 */
export interface AttachmentsBucketProps {
  /** `postlane-<stage>`; the bucket is `<prefix>-<account>-<region>`, as bucket names are global. */
  readonly namePrefix: string;
  /** Days an email record is kept (RETENTION_DAYS): its content is kept as long. */
  readonly retentionDays: number;
}

export class AttachmentsBucket extends Construct {
  readonly bucket: Bucket;

  constructor(scope: Construct, id: string, props: AttachmentsBucketProps) {
    super(scope, id);
    const { account, region } = Stack.of(this);
    this.bucket = new Bucket(this, 'Bucket', {
      bucketName: `${props.namePrefix}-${account}-${region}`,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      lifecycleRules: [
        {
          id: 'uploads',
          prefix: UPLOAD_KEYS_PREFIX,
          expiration: Duration.days(ATTACHMENT_UPLOAD_DAYS),
          abortIncompleteMultipartUploadAfter: Duration.days(ATTACHMENT_UPLOAD_DAYS),
        },
        {
          id: 'queued-bodies',
          prefix: QUEUED_MESSAGES_PREFIX,
          expiration: Duration.days(QUEUED_BODY_DAYS),
          abortIncompleteMultipartUploadAfter: Duration.days(ATTACHMENT_UPLOAD_DAYS),
        },
        // Audience exports (shared/contacts/export.ts): their links last minutes, the files a day.
        { id: 'exports', prefix: EXPORTS_PREFIX, expiration: Duration.days(EXPORT_DAYS), abortIncompleteMultipartUploadAfter: Duration.days(EXPORT_DAYS) },
        {
          // S3 counts from the upload (the send) and rounds up to the next midnight UTC: the content outlives its
          // record by under a day, and the table's TTL may keep the record up to two days longer than that.
          id: 'email-content',
          prefix: EMAIL_CONTENT_PREFIX,
          expiration: Duration.days(props.retentionDays),
        },
      ],
      // Browsers may upload straight from a page; the pre-signed URL is the credential, not the origin.
      cors: [{ allowedMethods: [HttpMethods.PUT], allowedOrigins: ['*'], allowedHeaders: ['content-type'], maxAge: 3600 }],
      removalPolicy: RemovalPolicy.DESTROY,
    });
    acknowledgeFindings(this.bucket, {
      'AwsSolutions-S1':
        'Uploads live one day, queued bodies until no queue holds their message, and both are read only by the functions, whose logs record each use; server access logs would need a bucket of their own. Turn on CloudTrail S3 data events if an audit needs every access',
    });
  }
}
