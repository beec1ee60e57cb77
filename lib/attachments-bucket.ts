import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { BlockPublicAccess, Bucket, BucketEncryption, HttpMethods, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { acknowledgeFindings } from './nag.ts';

/** Uploads are kept a day: attachment ids stop working after 24 hours (shared/domain/attachments.ts). */
export const ATTACHMENT_UPLOAD_DAYS = 1;

/**
 * This region's bucket of attachment uploads (POST /api/attachments hands out
 * pre-signed PUTs into it; the send endpoint reads them back). Private,
 * encrypted with S3-managed keys (a pre-signed PUT needs no KMS grant),
 * HTTPS only, and emptied by lifecycle a day after each upload.
 *
 * Destroyed with the stack: it holds nothing older than a day. CloudFormation
 * cannot delete a bucket that still has objects, so a stack deleted within a
 * day of the last upload leaves it to be emptied and deleted by hand.
 */
export interface AttachmentsBucketProps {
  /** `postlane-<stage>`; the bucket is `<prefix>-<account>-<region>`, as bucket names are global. */
  readonly namePrefix: string;
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
          expiration: Duration.days(ATTACHMENT_UPLOAD_DAYS),
          abortIncompleteMultipartUploadAfter: Duration.days(ATTACHMENT_UPLOAD_DAYS),
        },
      ],
      // Browsers may upload straight from a page; the pre-signed URL is the credential, not the origin.
      cors: [{ allowedMethods: [HttpMethods.PUT], allowedOrigins: ['*'], allowedHeaders: ['content-type'], maxAge: 3600 }],
      removalPolicy: RemovalPolicy.DESTROY,
    });
    acknowledgeFindings(this.bucket, {
      'AwsSolutions-S1':
        'Uploads live one day and are read only by the functions, whose logs record each use; server access logs would need a bucket of their own. Turn on CloudTrail S3 data events if an audit needs every access',
    });
  }
}
