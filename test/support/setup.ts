/**
 * Runs in each test worker before a test file loads: shared/platform/config.ts reads
 * the environment once, on import, so it must see the test services first.
 * In the `shared` project (vitest.config.ts) it runs again before every file of
 * the worker while the modules it loads do not: the worker's queues, scheduler
 * and API port are made once per process, and each file leaves them, the SDK
 * clients and the clock as it found them (`afterAll` below).
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { afterAll, beforeAll, inject, vi } from 'vitest';
import { MAX_RECEIVES } from '#shared/sending/retry-policy.ts';
import { createQueue, createRetryQueues } from '#dev/local/sqs.ts';
import { startLocalScheduler } from '#dev/local/scheduler.ts';
import { BROADCAST_MAX_RECEIVES } from '#shared/broadcasts/policy.ts';
import { EXPORT_MAX_RECEIVES } from '#shared/contacts/export-policy.ts';

const worker = globalThis as { postlaneWorkerReady?: boolean };
if (!worker.postlaneWorkerReady) {
  worker.postlaneWorkerReady = true;
  process.env.DYNAMODB_ENDPOINT = inject('dynamodbEndpoint');
  process.env.SES_ENDPOINT = inject('sesEndpoint');
  process.env.S3_ENDPOINT = inject('s3Endpoint');
  process.env.TABLE_NAME = inject('tableName');
  process.env.SQS_ENDPOINT = inject('sqsEndpoint');
  // A retry queue per worker: a file must never take the throttled messages of another running beside it.
  process.env.RETRY_QUEUE_URL = (await createRetryQueues(inject('sqsEndpoint'), `retry-${randomUUID()}`, MAX_RECEIVES)).queueUrl;
  // And webhook queues per worker, for the same reason.
  process.env.WEBHOOK_QUEUE_URL = await createQueue(inject('sqsEndpoint'), `webhooks-${randomUUID()}`);
  process.env.WEBHOOK_SLOW_QUEUE_URL = await createQueue(inject('sqsEndpoint'), `webhooks-slow-${randomUUID()}`);
  process.env.AWS_REGION = 'us-east-1';
  // A broadcast queue and scheduler per worker, for the same reason; the scheduler fires only when a test calls fireDue.
  const broadcastQueues = await createRetryQueues(inject('sqsEndpoint'), `broadcasts-${randomUUID()}`, BROADCAST_MAX_RECEIVES);
  process.env.BROADCAST_QUEUE_URL = broadcastQueues.queueUrl;
  process.env.BROADCAST_QUEUE_ARN = `arn:aws:sqs:us-east-1:000000000000:${broadcastQueues.queueUrl.split('/').pop()}`;
  process.env.BROADCAST_SCHEDULER_ROLE_ARN = 'arn:aws:iam::000000000000:role/local-scheduler';
  process.env.BROADCAST_SCHEDULE_DLQ_ARN = `arn:aws:sqs:us-east-1:000000000000:${(await createQueue(inject('sqsEndpoint'), `broadcast-schedules-dlq-${randomUUID()}`)).split('/').pop()}`;
  // And an export queue per worker; its worker runs only in the files that start it (test/api/audience-export-queued.test.ts).
  process.env.EXPORT_QUEUE_URL = (await createRetryQueues(inject('sqsEndpoint'), `exports-${randomUUID()}`, EXPORT_MAX_RECEIVES)).queueUrl;
  process.env.SCHEDULER_ENDPOINT = (await startLocalScheduler({ port: 0, sqsEndpoint: inject('sqsEndpoint') })).endpoint;
  // Links are built from configuration, as deployed: the worker's API server (test/support/api.ts) listens on this port.
  process.env.TEST_API_PORT = String(await freePort());
  process.env.PUBLIC_BASE_URL = `http://127.0.0.1:${process.env.TEST_API_PORT}`;
  // The sender of sign-in codes and invitations (test/people reads them back by recipient).
  process.env.SERVICE_MAIL_FROM = 'Postlane <no-reply@postlane.test>';
  // Lambda runs Node 22+; the SDK's warning about this machine's Node 20 is noise here.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  // A worker of isolated files makes its clients only once the file has set its environment (beforeAll below).
  if (inject('sharedModules')) await (await import('./worker.ts')).shareWorker();
}

/** A port nothing listens on now: the OS's choice for port 0. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
      .once('error', reject)
      .listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
  });
}

// The two local stand-ins replace AWS calls the deployed functions make: record those
// (test/support/aws-calls.ts), and keep the stand-ins' own table calls out of the record.
vi.mock('#shared/platform/signing/secret.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('#shared/platform/signing/secret.ts')>();
  const [{ recordCall }, { outsideInvocation }] = await Promise.all([import('./aws-calls.ts'), import('#dev/local/invocation.ts')]);
  return {
    ...original,
    // Deployed, each function reads the secret on its own cold start; here the process reads it once.
    signingSecret: () => {
      recordCall('secretsmanager:GetSecretValue', { kind: 'secret', secret: 'linkSigning' });
      return outsideInvocation(original.signingSecret);
    },
  };
});
vi.mock('#shared/domains/verification.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('#shared/domains/verification.ts')>();
  const [{ recordCall }, { runInterleaved }, { outsideInvocation }] = await Promise.all([
    import('./aws-calls.ts'),
    import('./identity-race.ts'),
    import('#dev/local/invocation.ts'),
  ]);
  return {
    ...original,
    configuredVerifier: () => {
      const verifier = original.configuredVerifier();
      return {
        createIdentity: async (domain: string) => {
          recordCall('ses:CreateEmailIdentity', { kind: 'identity', identity: domain });
          await outsideInvocation(() => runInterleaved(domain));
          return verifier.createIdentity(domain);
        },
        readIdentity: (domain: string, token: string) => {
          recordCall('ses:GetEmailIdentity', { kind: 'identity', identity: domain });
          return verifier.readIdentity(domain, token);
        },
        deleteIdentity: (domain: string) => {
          recordCall('ses:DeleteEmailIdentity', { kind: 'identity', identity: domain });
          return verifier.deleteIdentity(domain);
        },
      };
    },
  };
});

// Once the test file has loaded: importing the clients reads shared/platform/config.ts, which a
// file may first adjust (vi.hoisted environment, as test/broadcasts/pacing-ses-rate.test.ts does).
beforeAll(async () => {
  await (await import('./aws-calls.ts')).recordAwsCalls();
});

// biome-ignore lint/correctness/noEmptyPattern: vitest requires an object pattern first to pass the suite second
afterAll(async ({}, suite) => {
  // A worker that shares its modules keeps its API server for its next file: fetch's pooled keep-alive connections to
  // that port would otherwise meet a closed server (ECONNRESET) once the next file starts another on the same port.
  if (inject('sharedModules')) await (await import('./worker.ts')).endFile();
  else await (await import('./api.ts')).stopApi();
  vi.useRealTimers();
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
  (await import('./aws-calls.ts')).writeRecordedCalls(inject('awsCallsDirectory'), (suite as { file: { filepath: string } }).file.filepath);
});
