/**
 * Starts the backing services once per `npm test`: DynamoDB Local in memory,
 * the SES emulator and the local S3 (in memory), each on a free port, with a
 * table of its own, so the run needs nothing running and leaves nothing running.
 * And builds the dashboard the browser tests open, once for the run, while
 * DynamoDB Local starts.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { buildDashboard, type DashboardBuild } from '../../dashboard/build.ts';
import { ensureTable, startDynamoDbLocal } from '#dev/local/dynamodb.ts';
import { findFreePort } from '#dev/local/ports.ts';
import { startLocalS3 } from '#dev/local/s3.ts';
import { startSesEmulator } from '#dev/local/ses.ts';
import { startLocalSqs } from '#dev/local/sqs.ts';
import { compiledContractPath } from './contract-validators.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
    sesEndpoint: string;
    s3Endpoint: string;
    sqsEndpoint: string;
    tableName: string;
    /** Where each test file's worker writes the AWS calls its functions made (test/support/aws-calls.ts). */
    awsCallsDirectory: string;
    /** What the run's dashboard build wrote to dist/dashboard, which the API server serves. */
    dashboardBuild: DashboardBuild;
    /** Set by the `shared` project (vitest.config.ts): its workers run many files with one module graph. */
    sharedModules?: boolean;
  }
}

/**
 * The admin CLI's launcher bundles it on its first run after a source change
 * (bin/admin.mjs): once here, rather than by each of the tests' first calls
 * at once, every one of them its own esbuild run.
 */
async function buildAdminCli(): Promise<void> {
  await promisify(execFile)(process.execPath, ['bin/admin.mjs', '--help'], { cwd: resolve(import.meta.dirname, '../..') });
}

/** The free port can be taken between the check and java's bind; another try settles it. */
async function startDynamoDb() {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startDynamoDbLocal({ port: await findFreePort(), lean: true });
    } catch (error) {
      if (attempt === 3) throw error;
    }
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const [dynamodb, ses, s3, sqs, dashboardBuild] = await Promise.all([
    startDynamoDb(),
    startSesEmulator({ port: 0 }),
    startLocalS3({ port: 0 }),
    startLocalSqs({ port: 0 }),
    buildDashboard().catch((error: unknown) => error as Error),
    buildAdminCli(),
  ]);
  // Once here, while no test file runs yet, rather than by the first files at once (test/support/contract.ts).
  await compiledContractPath();
  const tableName = `postlane-test-${Date.now().toString(36)}-${process.pid}`;
  try {
    if (dashboardBuild instanceof Error) throw dashboardBuild;
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
  project.provide('dashboardBuild', dashboardBuild);
  const awsCallsDirectory = mkdtempSync(join(tmpdir(), 'postlane-aws-calls-'));
  project.provide('awsCallsDirectory', awsCallsDirectory);
  return async () => {
    await Promise.all([dynamodb.stop(), ses.stop(), s3.stop(), sqs.stop()]);
    try {
      await checkIam(awsCallsDirectory);
    } finally {
      rmSync(awsCallsDirectory, { recursive: true, force: true });
    }
  };
}

/**
 * Fails the run when a function made an AWS call its deployed role would deny
 * (or, on a full run, was granted an action it never needed): DynamoDB Local
 * and the emulators enforce no IAM. Vitest only logs an error thrown here, so
 * the exit code is set too.
 */
async function checkIam(directory: string): Promise<void> {
  const { checkRecordedCalls } = await import('./iam.ts');
  const records = readdirSync(directory).map((name) => JSON.parse(readFileSync(join(directory, name), 'utf8')));
  const root = resolve(import.meta.dirname, '../..');
  // Kept for a look after the run: which function made which call, by test file.
  mkdirSync(join(root, '.data'), { recursive: true });
  writeFileSync(join(root, '.data', 'aws-calls.json'), JSON.stringify(records));
  const testFiles = readdirSync(join(root, 'test'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => join(root, 'test', name));
  const problems = checkRecordedCalls(records, testFiles);
  if (problems.length === 0) return;
  process.exitCode = 1;
  throw new Error(`IAM check (test/support/iam.ts), ${problems.length} finding(s):\n${problems.join('\n')}`);
}
