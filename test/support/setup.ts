/**
 * Runs in each test worker before a test file loads: shared/config.ts reads
 * the environment once, on import, so it must see the test services first.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, inject } from 'vitest';
import { MAX_RECEIVES } from '#shared/email/retry-policy.ts';
import { createRetryQueues } from '#shared/local/sqs.ts';

process.env.DYNAMODB_ENDPOINT = inject('dynamodbEndpoint');
process.env.SES_ENDPOINT = inject('sesEndpoint');
process.env.S3_ENDPOINT = inject('s3Endpoint');
process.env.TABLE_NAME = inject('tableName');
process.env.SQS_ENDPOINT = inject('sqsEndpoint');
// A retry queue per test file: a file's worker must never take another file's throttled messages.
process.env.RETRY_QUEUE_URL = (await createRetryQueues(inject('sqsEndpoint'), `retry-${randomUUID()}`, MAX_RECEIVES)).queueUrl;
process.env.AWS_REGION = 'us-east-1';
// Lambda runs Node 22+; the SDK's warning about this machine's Node 20 is noise here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

afterAll(async () => {
  await (await import('./api.ts')).stopApi();
});
