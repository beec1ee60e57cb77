import { SQSClient } from '@aws-sdk/client-sqs';
import { awsConnection, config } from '#shared/platform/config.ts';

/**
 * Module scope, so a warm Lambda reuses its connections. Built by a call
 * marked pure, as the SES client is (shared/sending/transport.ts): the webhook routes
 * import the queues' modules for their types and helpers, and their bundles
 * then drop the client and the SQS SDK. Every area's queue sends through this
 * one client (the tests record its calls for the IAM check).
 */
export const sqs = /* @__PURE__ */ newSqsClient();

function newSqsClient(): SQSClient {
  return new SQSClient({ ...awsConnection(config.SQS_ENDPOINT), maxAttempts: 3 });
}
