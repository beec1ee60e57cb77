/**
 * `npm run smoke` against `npm start` (in memory, on free ports), so the
 * deployment smoke test cannot rot: the local mailbox simulator plays the
 * part of SES's, turning the bounce and complaint sends into feedback.
 */
import { execFile } from 'node:child_process';
import { type AttributeValue, DynamoDBClient, QueryCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { findFreePort } from '#dev/local/ports.ts';
import { ROOT, startStack, stopStack, untilReady } from './npm-start.ts';

function smoke(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('npm', ['run', '--silent', 'smoke', '--', ...args], { cwd: ROOT, env: { ...process.env, ...env } }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** The items of one partition of the stack's table (DynamoDB Local at `endpoint`). */
async function partition(endpoint: string, pk: string): Promise<Record<string, AttributeValue>[]> {
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const page = await client.send(
    new QueryCommand({ TableName: 'postlane', KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': { S: pk } } }),
  );
  client.destroy();
  return page.Items ?? [];
}

/** The keys left in the partitions a throwaway account's resources live in (contacts, audiences, templates, forms, broadcasts, keys, domain). */
async function itemsLeft(endpoint: string, accountId: string): Promise<string[]> {
  const partitions = ['', '#DOMAIN', '#AUD', '#AUDSTATS', '#CON', '#TPL', '#TPLFULL', '#FRM', '#BRO', '#WHK'].map((suffix) => `${accountId}${suffix}`);
  const left = await Promise.all(partitions.map(async (pk) => (await partition(endpoint, pk)).map((item) => `${pk} ${item.sk?.S}`)));
  return left.flat();
}

/** How many domain records hold the local SES identity of example.com (shared/domains/ses-identity-store.ts). */
async function identityHolders(endpoint: string): Promise<number> {
  const items = await partition(endpoint, 'SYSTEM#SES_IDENTITY#example.com');
  return items.reduce((total, item) => total + Number(item.holders?.N ?? 0), 0);
}

describe('npm run smoke', () => {
  it('passes every check against npm start, feedback included, and prints the table', async () => {
    const [api, dynamodb, ses] = [await findFreePort(), await findFreePort(), await findFreePort()];
    const started = startStack({ LOCAL_IN_MEMORY: '1', PORT: String(api), DYNAMODB_PORT: String(dynamodb), SES_PORT: String(ses) });
    const output = await untilReady(started);
    expect(output).toMatch(/^SES feedback +success@, bounce@, complaint@simulator\.amazonses\.com +\(local mailbox simulator\)$/m);
    expect(output).toMatch(
      /^feedback queue +http:\/\/127\.0\.0\.1:\d+\/\S+-feedback +\(SES events, worker polling; dead letters: http:\/\/127\.0\.0\.1:\d+\/\S+-feedback-dlq\)$/m,
    );

    const holdersBefore = await identityHolders(`http://127.0.0.1:${dynamodb}`);
    const run = await smoke(['--url', `http://127.0.0.1:${api}`, '--table', 'postlane', '--timeout', '15'], {
      DYNAMODB_ENDPOINT: `http://127.0.0.1:${dynamodb}`,
    });
    const accountId = /^PASS {2}account .* (acc_\w+),/m.exec(run.stdout)?.[1];
    const left = accountId ? await itemsLeft(`http://127.0.0.1:${dynamodb}`, accountId) : ['no account id printed'];
    const holdersAfter = await identityHolders(`http://127.0.0.1:${dynamodb}`);
    await stopStack(started);

    expect(left).toEqual([]);
    // The account's hold on the SES identity was handed back with its domain.
    expect(holdersAfter).toBe(holdersBefore);
    expect(run.stdout).toMatch(/^smoke passed: 17 passed, 0 failed$/m);
    for (const name of [
      'account',
      'audiences',
      'contacts',
      'email send',
      'feedback',
      'otp',
      'templates',
      'forms',
      'attachments',
      'transactional',
      'broadcasts',
      'subscriptions',
      'events',
      'webhooks',
      'domains',
      'docs',
      'cleanup',
    ]) {
      expect(run.stdout).toMatch(new RegExp(`^PASS  ${name} `, 'm'));
    }
    expect(run.code).toBe(0);
    // The throwaway key is revoked by the cleanup.
    const key = /svc_live_\w+/.exec(run.stdout);
    expect(key).toBeNull();
  }, 90_000);

  it('says how to call it when --url or --table is missing', async () => {
    const run = await smoke(['--url', 'http://127.0.0.1:1'], {});

    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^usage: npm run smoke -- --url/);
  });
});
