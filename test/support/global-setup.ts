/**
 * Starts the backing services once per `npm test`: DynamoDB Local in memory,
 * the SES emulator and the local S3 (in memory), each on a free port, with a
 * table of its own, so the run needs nothing running and leaves nothing running.
 */
import type { TestProject } from 'vitest/node';
import { ensureTable, startDynamoDbLocal } from '#shared/local/dynamodb.ts';
import { findFreePort } from '#shared/local/ports.ts';
import { startLocalS3 } from '#shared/local/s3.ts';
import { startSesEmulator } from '#shared/local/ses.ts';
import { startLocalSqs } from '#shared/local/sqs.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
    sesEndpoint: string;
    s3Endpoint: string;
    sqsEndpoint: string;
    tableName: string;
  }
}

/** The free port can be taken between the check and java's bind; another try settles it. */
async function startDynamoDb() {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startDynamoDbLocal({ port: await findFreePort() });
    } catch (error) {
      if (attempt === 3) throw error;
    }
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const [dynamodb, ses, s3, sqs] = await Promise.all([startDynamoDb(), startSesEmulator({ port: 0 }), startLocalS3({ port: 0 }), startLocalSqs({ port: 0 })]);
  const tableName = `postlane-test-${Date.now().toString(36)}-${process.pid}`;
  try {
    await ensureTable(dynamodb.endpoint, tableName);
  } catch (error) {
    await Promise.all([dynamodb.stop(), ses.stop(), s3.stop(), sqs.stop()]);
    throw error;
  }
  project.provide('dynamodbEndpoint', dynamodb.endpoint);
  project.provide('sesEndpoint', ses.endpoint);
  project.provide('s3Endpoint', s3.endpoint);
  project.provide('sqsEndpoint', sqs.endpoint);
  project.provide('tableName', tableName);
  return async () => {
    await Promise.all([dynamodb.stop(), ses.stop(), s3.stop(), sqs.stop()]);
  };
}
