/**
 * Exports too large for their request, end to end: POST answers 202 `queued`,
 * the export worker takes the job from the real local queue (the poller as
 * Lambda's event source), reads the audience with Queries and writes the CSV
 * to the local S3; GET polls the record until `ready` with a link. The
 * synchronous limit is lowered to 2 contacts for this file
 * (EXPORT_SYNC_MAX_CONTACTS), and its export queue hands a failed job back
 * after 2 s (the stack's is six worker timeouts), so three receives take no minutes.
 */
import { randomUUID } from 'node:crypto';
import { GetQueueAttributesCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

await vi.hoisted(async () => {
  const [{ randomUUID: uuid }, { createRetryQueues }, { inject }, { EXPORT_MAX_RECEIVES }] = await Promise.all([
    import('node:crypto'),
    import('#dev/local/sqs.ts'),
    import('vitest'),
    import('#shared/contacts/export-policy.ts'),
  ]);
  process.env.EXPORT_SYNC_MAX_CONTACTS = '2';
  const name = `exports-queued-${uuid()}`;
  process.env.EXPORT_QUEUE_URL = (await createRetryQueues(inject('sqsEndpoint'), name, EXPORT_MAX_RECEIVES, { visibilityTimeoutSeconds: 2 })).queueUrl;
});

import { startExportWorker } from '#dev/local/export-worker.ts';
import { currentHandler } from '#dev/local/invocation.ts';
import { importContacts } from '#shared/contacts/import.ts';
import { readAudienceContacts, readExport } from '#shared/contacts/export.ts';
import { getExport } from '#shared/contacts/export-store.ts';
import { EXPORT_PAGE_ITEMS, EXPORT_STALE_MS } from '#shared/contacts/export-policy.ts';
import { config } from '#shared/platform/config.ts';
import { sqs } from '#shared/platform/aws/sqs.ts';
import { createTestAccount } from '../support/accounts.ts';
import { request } from '../support/api.ts';
import { setFaultHook } from '../support/dynamo-faults.ts';
import { eventually } from '../support/eventually.ts';

let stopWorker: (() => Promise<void>) | undefined;
beforeAll(async () => {
  stopWorker = (await startExportWorker()).stop;
});
afterAll(async () => {
  await stopWorker?.();
});
afterEach(() => setFaultHook(undefined));

/** An audience of `count` contacts (one with a custom field and a formula), past this file's synchronous limit of 2. */
async function audienceWith(key: string, accountId: string, count: number): Promise<string> {
  const audienceId = (await request('POST', '/api/audiences', { key, body: { name: 'Big list' } })).body.data.id as string;
  const contacts = Array.from({ length: count }, (_, index) => ({
    email: `queued-${index}-${randomUUID().slice(0, 8)}@example.org`,
    ...(index === 1 ? { firstName: '=SUM(A1)', customFields: { plan: 'pro' } } : {}),
  }));
  // One import each, so their ids spread over several milliseconds and the worker's parallel ranges each read some.
  for (const contact of contacts) await importContacts(accountId, { audienceId, skipDuplicates: false, contacts: [contact] }, new Date());
  return audienceId;
}

const poll = (key: string, audienceId: string, exportId: string) =>
  eventually(
    () => request('GET', `/api/audiences/${audienceId}/exports/${exportId}`, { key }),
    (answer) => answer.body.data?.status === 'ready' || answer.body.data?.status === 'failed',
  );

const visible = async (queueUrl: string) =>
  Number(
    (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages'] }))).Attributes
      ?.ApproximateNumberOfMessages,
  );

describe('a queued audience export', () => {
  it('answers 202 queued, and the worker writes every contact, oldest first, behind a link the GET answers', async () => {
    const { accountId, key } = await createTestAccount();
    const audienceId = await audienceWith(key, accountId, 5);

    const queued = await request('POST', `/api/audiences/${audienceId}/exports`, { key });
    const done = await poll(key, audienceId, queued.body.data.id);
    const csv = await (await fetch(done.body.data.url)).text();

    expect(queued.status).toBe(202);
    expect(queued.body).toEqual({ success: true, data: { id: expect.stringMatching(/^exp_/), status: 'queued', rows: 0, createdAt: expect.any(String) } });
    expect(done.status).toBe(200);
    expect(done.body.data).toEqual({
      id: queued.body.data.id,
      status: 'ready',
      rows: 5,
      url: expect.any(String),
      expiresAt: expect.any(String),
      createdAt: queued.body.data.createdAt,
    });
    expect(new URL(done.body.data.url).searchParams.get('response-content-disposition')).toBe('attachment; filename="Big-list.csv"');
    const lines = csv.split('\r\n');
    expect(lines[0]).toBe('email,firstName,lastName,phone,status,tags,createdAt,updatedAt,customFields.plan');
    expect(lines.slice(1, -1).map((line) => line.split(',')[0])).toEqual(Array.from({ length: 5 }, (_, index) => expect.stringMatching(`^queued-${index}-`)));
    expect(lines[2]).toContain(`,'=SUM(A1),`);
    expect(lines[2]!.endsWith(',pro')).toBe(true);
  });

  it("is another account's 404 EXPORT_NOT_FOUND, whether it names its own audience or the owner's", async () => {
    const owner = await createTestAccount();
    const stranger = await createTestAccount();
    const audienceId = await audienceWith(owner.key, owner.accountId, 3);
    const strangersAudience = (await request('POST', '/api/audiences', { key: stranger.key, body: { name: 'Mine' } })).body.data.id as string;
    const { id } = (await request('POST', `/api/audiences/${audienceId}/exports`, { key: owner.key })).body.data;
    await poll(owner.key, audienceId, id);

    for (const path of [`/api/audiences/${audienceId}/exports/${id}`, `/api/audiences/${strangersAudience}/exports/${id}`]) {
      const answer = await request('GET', path, { key: stranger.key });
      expect(answer.status, path).toBe(404);
      expect(answer.body).toMatchObject({ success: false, error: 'EXPORT_NOT_FOUND' });
      expect(JSON.stringify(answer.body)).not.toContain('exports/');
    }
  });

  it('does its work once when the job is delivered again: the record stays ready with the same rows and one attempt', async () => {
    const { accountId, key } = await createTestAccount();
    const audienceId = await audienceWith(key, accountId, 4);
    const { id } = (await request('POST', `/api/audiences/${audienceId}/exports`, { key })).body.data;
    const first = await poll(key, audienceId, id);
    const file = await (await fetch(first.body.data.url)).text();

    const job = JSON.stringify({ accountId, audienceId, exportId: id });
    await sqs.send(new SendMessageCommand({ QueueUrl: config.EXPORT_QUEUE_URL, MessageBody: job }));
    await sqs.send(new SendMessageCommand({ QueueUrl: config.EXPORT_QUEUE_URL, MessageBody: job }));
    await eventually(
      () => visible(config.EXPORT_QUEUE_URL!),
      (count) => count === 0,
    );
    // The poller deletes a settled message after its handler returns: let the last one finish.
    await new Promise((resolve) => setTimeout(resolve, 300));

    const again = await request('GET', `/api/audiences/${audienceId}/exports/${id}`, { key });
    expect(again.body.data).toMatchObject({ status: 'ready', rows: 4 });
    expect(await getExport(accountId, audienceId, id, new Date())).toMatchObject({ status: 'ready', rows: 4, attempts: 1 });
    expect(await (await fetch(again.body.data.url)).text()).toBe(file);
  });

  it('ends failed, with a reason, when every attempt of the worker fails, and leaves nothing on the queues', async () => {
    const { accountId, key } = await createTestAccount();
    const audienceId = await audienceWith(key, accountId, 3);
    let reads = 0;
    setFaultHook((command, input) => {
      if (command !== 'QueryCommand' || currentHandler() !== 'audiences/export-work') return undefined;
      if (!JSON.stringify(input.ExpressionAttributeValues ?? {}).includes(audienceId)) return undefined;
      reads++;
      return { error: Object.assign(new Error('the table is unreachable'), { name: 'InternalServerError' }) };
    });

    const { id } = (await request('POST', `/api/audiences/${audienceId}/exports`, { key })).body.data;
    const failed = await poll(key, audienceId, id);

    expect(failed.body.data).toEqual({
      id,
      status: 'failed',
      rows: 0,
      reason: 'The export failed at each of its 3 attempts. Export again.',
      createdAt: expect.any(String),
    });
    expect(reads).toBeGreaterThanOrEqual(3);
    expect(await getExport(accountId, audienceId, id, new Date())).toMatchObject({ status: 'failed', attempts: 3 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await visible(config.EXPORT_QUEUE_URL!)).toBe(0);
    expect(await visible(`${config.EXPORT_QUEUE_URL}-dlq`)).toBe(0);
  });

  it('reads as failed once no worker can still be running it (each attempt crashed or timed out)', async () => {
    const { accountId, key } = await createTestAccount();
    const audienceId = await audienceWith(key, accountId, 3);
    // The worker stopped for this one: the job waits, as when every receive's worker died.
    await stopWorker?.();
    stopWorker = undefined;
    const { id } = (await request('POST', `/api/audiences/${audienceId}/exports`, { key })).body.data;

    const early = await readExport(accountId, audienceId, id, new Date());
    const late = await readExport(accountId, audienceId, id, new Date(Date.now() + EXPORT_STALE_MS + 1000));

    expect(early.status).toBe('queued');
    expect(late).toMatchObject({ status: 'failed', reason: 'The export did not finish: its worker stopped at every attempt. Export again.' });
    expect((await request('GET', `/api/audiences/${audienceId}/exports/${id}`, { key })).body.data.status).toBe('failed');
  });
});

describe('the ranges an export reads in parallel', () => {
  it('cover the span between the oldest and newest contact without gap or overlap, the outer two open', async () => {
    const { idRanges } = await import('#shared/contacts/export.ts');
    const { idBoundAt } = await import('#shared/platform/ids.ts');
    const ranges = idRanges(1_000, 1_099, 4);

    expect(ranges).toEqual([
      { to: idBoundAt('con', 1_024, 'last') },
      { from: idBoundAt('con', 1_025, 'first'), to: idBoundAt('con', 1_049, 'last') },
      { from: idBoundAt('con', 1_050, 'first'), to: idBoundAt('con', 1_074, 'last') },
      { from: idBoundAt('con', 1_075, 'first') },
    ]);
    expect(idRanges(5, 5, 4)).toEqual([{}]);
  });

  it('are read a page of at most EXPORT_PAGE_ITEMS contacts at a time, each contact once and in order across pages', async () => {
    const { accountId, key } = await createTestAccount();
    const audienceId = await audienceWith(key, accountId, 5);
    const limits: (number | undefined)[] = [];
    // An observer, not a fault: the Limit of each page Query of this audience (the span's two ask for 1 item).
    setFaultHook((command, input) => {
      if (command === 'QueryCommand' && JSON.stringify(input.ExpressionAttributeValues ?? {}).includes(audienceId) && input.Limit !== 1)
        limits.push(input.Limit as number | undefined);
      return undefined;
    });

    const paged = await readAudienceContacts(accountId, audienceId, 1, 2);
    const pagedLimits = limits.splice(0);
    await readAudienceContacts(accountId, audienceId);

    expect(paged.map((contact) => contact.email)).toEqual(Array.from({ length: 5 }, (_, index) => expect.stringMatching(`^queued-${index}-`)));
    expect(pagedLimits).toEqual([2, 2, 2]);
    expect(limits.length).toBeGreaterThan(0);
    expect(limits.every((limit) => limit === EXPORT_PAGE_ITEMS)).toBe(true);
  });
});
