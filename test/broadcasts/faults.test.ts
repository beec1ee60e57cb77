/**
 * Exactly once under faults: a worker that stops between SES accepting a
 * message and recording it, DynamoDB throttling, SES throttling and SQS
 * delivering a step twice never send anyone a second copy nor lose anyone;
 * a broadcast paused by the quota resumes on `send` without repeats. Faults
 * a real peer cannot produce on demand are injected: DynamoDB's through the
 * fault seam, SES throttling by a spy on the SES client.
 */
import { TooManyRequestsException, type SendEmailCommand } from '@aws-sdk/client-sesv2';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ses } from '#shared/sending/transport.ts';
import { config } from '#shared/platform/config.ts';
import { sqs } from '#shared/sending/retry-queue.ts';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { releaseEmails } from '#shared/accounts/usage-store.ts';
import { quotaPeriod } from '#shared/accounts/service.ts';
import { setFaultHook } from '../support/dynamo-faults.ts';
import { request } from '../support/api.ts';
import { createSender, storedEmails, uniqueAddress } from '../sending/support.ts';
import { broadcastWhen, createBroadcast, drainBroadcastQueue, expectOneEach, mixedAudience, unsubscribeContacts } from './support.ts';
import { configureFile } from '../support/worker.ts';

configureFile({
  // A claim still `sending` when its step comes back is abandoned here at once (deployed: after five minutes).
  BROADCAST_CLAIM_TIMEOUT_MS: '0',
  BROADCAST_THROTTLE_DELAY_SECONDS: '0',
  // The table client's retries of what throttling left unprocessed are counted by the outcome; waiting the production backoff between them proves nothing more.
  DYNAMODB_BACKOFF_MS: '1',
});

afterEach(() => {
  setFaultHook(undefined);
  vi.restoreAllMocks();
});

const CONTENT = '<p>Hi {{firstName}}</p>';

/** Each recipient got exactly one message, and the broadcast finished `sent` with none failed. */
async function expectSentOnceEach(sender: { domain: string; key: string }, broadcastId: string, recipients: readonly string[]) {
  expectOneEach(await storedEmails(sender.domain), recipients);
  expect((await broadcastWhen(sender.key, broadcastId, ['sent'])).counts).toMatchObject({ sent: recipients.length, failed: 0 });
}

/** Arrange: a sender with an audience of `count` contacts of mixed statuses and a draft broadcast to it; `send` starts it. */
async function started(count: number, account?: Parameters<typeof createSender>[0]) {
  const sender = await createSender(account);
  const { audienceId, contacts } = await mixedAudience(sender, count);
  const broadcast = await createBroadcast(sender, { audienceId, content: CONTENT });
  const subscribed = contacts.filter((contact) => contact.status === 'subscribed').map((contact) => contact.email);
  return { sender, broadcast, subscribed, send: () => request('POST', `/api/broadcasts/${broadcast.id}/send`, { key: sender.key, body: {} }) };
}

/** Arrange: a broadcast started and planned (its recipients snapshot taken, nothing sent), then three of its subscribed contacts unsubscribe. */
async function plannedThenThreeLeave(count: number) {
  const arranged = await started(count);
  await arranged.send();
  await drainBroadcastQueue({ only: (step) => step.kind === 'plan' });
  const leaving = arranged.subscribed.slice(0, 3);
  await unsubscribeContacts(arranged.sender, arranged.broadcast.audienceId, leaving);
  return { ...arranged, leaving };
}

/** Those `leaving` were skipped and counted suppressed, every other recipient got exactly one message, and none failed. */
async function expectSkipped(sender: { domain: string; key: string }, broadcastId: string, recipients: readonly string[], leaving: readonly string[]) {
  expectOneEach(
    await storedEmails(sender.domain),
    recipients.filter((address) => !leaving.includes(address)),
  );
  expect((await broadcastWhen(sender.key, broadcastId, ['sent'])).counts).toEqual({
    recipients: recipients.length,
    sent: recipients.length - leaving.length,
    suppressed: leaving.length,
    failed: 0,
    remaining: 0,
  });
}

describe('broadcast engine under faults', { timeout: 90_000 }, () => {
  it('a worker that stops after SES accepted a message never sends it again: it is counted failed, unconfirmed', async () => {
    const { sender, broadcast, subscribed, send } = await started(40);
    let crashed = false;
    // The write of the first message SES accepted (its record with its email.sent event) fails, as if the worker died right after SES answered.
    setFaultHook((command, input) => {
      if (crashed || command !== 'BatchWriteItemCommand' || !JSON.stringify(input).includes('sesMessageId')) return undefined;
      crashed = true;
      return { error: Object.assign(new Error('worker stopped'), { name: 'WorkerCrash' }) };
    });

    await send();
    await drainBroadcastQueue();

    expect(crashed).toBe(true);
    expectOneEach(await storedEmails(sender.domain), subscribed);
    const done = await broadcastWhen(sender.key, broadcast.id, ['sent']);
    expect(done.counts).toEqual({ recipients: subscribed.length, sent: subscribed.length - 1, suppressed: 0, failed: 1, remaining: 0 });
  });

  it('DynamoDB throttling of leases, reads and records delays recipients but neither repeats nor loses one', async () => {
    const { sender, broadcast, subscribed, send } = await started(60);
    let claims = 0;
    setFaultHook((command, input) => {
      // Reads and the records' writes answered in part, as under throttling: the rest is retried.
      if (command === 'BatchGetItemCommand' || command === 'BatchWriteItemCommand') return { unprocessed: 'half' };
      // The 2nd, 4th and 6th writes naming the messages about to go to SES are refused as throttled (outlasting the SDK's retries).
      if (command === 'UpdateItemCommand' && String(input.UpdateExpression).includes('inFlight = :ids') && ++claims % 2 === 0 && claims <= 6) {
        return { error: Object.assign(new Error('Throughput exceeds the current capacity'), { name: 'ProvisionedThroughputExceededException' }) };
      }
      return undefined;
    });

    await send();
    await drainBroadcastQueue();
    setFaultHook(undefined);

    expect(claims).toBeGreaterThan(6);
    await expectSentOnceEach(sender, broadcast.id, subscribed);
  });

  it('SES throttling slows the broadcast down instead of failing messages', async () => {
    const { sender, broadcast, subscribed, send } = await started(40);
    const original = ses.send.bind(ses);
    let throttled = 0;
    vi.spyOn(ses, 'send').mockImplementation((async (command: SendEmailCommand) => {
      if (throttled < 10) {
        throttled++;
        throw new TooManyRequestsException({ message: 'Maximum sending rate exceeded.', $metadata: {} });
      }
      return original(command);
    }) as typeof ses.send);

    await send();
    await drainBroadcastQueue();

    expect(throttled).toBe(10);
    await expectSentOnceEach(sender, broadcast.id, subscribed);
  });

  it('a step SQS delivers twice changes nothing: one message each, counted once', async () => {
    const { sender, broadcast, subscribed, send } = await started(120);
    await send();
    await drainBroadcastQueue({ only: (step) => step.kind === 'plan' });
    // Every batch step once more, as SQS's at-least-once delivery may.
    for (const batch of [0, 1]) {
      await sqs.send(
        new SendMessageCommand({
          QueueUrl: config.BROADCAST_QUEUE_URL!,
          MessageBody: JSON.stringify({ kind: 'batch', accountId: sender.accountId, broadcastId: broadcast.id, batch }),
        }),
      );
    }

    await drainBroadcastQueue();

    expectOneEach(await storedEmails(sender.domain), subscribed);
    expect((await broadcastWhen(sender.key, broadcast.id, ['sent'])).counts).toEqual({
      recipients: subscribed.length,
      sent: subscribed.length,
      suppressed: 0,
      failed: 0,
      remaining: 0,
    });
  });

  it('a plan step SQS delivers again after contacts left plans the snapshot it took the first time', async () => {
    const { sender, broadcast, subscribed, leaving } = await plannedThenThreeLeave(120);
    // The first page's step once more, as SQS's at-least-once delivery may: paging again now would find 3 fewer contacts.
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: config.BROADCAST_QUEUE_URL!,
        MessageBody: JSON.stringify({ kind: 'plan', accountId: sender.accountId, broadcastId: broadcast.id, batch: 0, recipients: 0 }),
      }),
    );

    await drainBroadcastQueue({ only: (step) => step.kind === 'plan' });
    await drainBroadcastQueue();

    await expectSkipped(sender, broadcast.id, subscribed, leaving);
  });

  it('a message that fails to render leaves nobody of its group unconfirmed: once it renders, everyone gets one', async () => {
    const sender = await createSender();
    const audienceId = (await request('POST', '/api/audiences', { key: sender.key, body: { name: 'Render' } })).body.data.id;
    // The 13th contact (in the second group of ten) makes the loop exceed the render bound until its count is lowered.
    const contacts = Array.from({ length: 15 }, (_, index) => ({ email: uniqueAddress(`r${index}`), customFields: { count: index === 12 ? 100_000_000 : 1 } }));
    await request('POST', '/api/contacts/bulk', { key: sender.key, body: { audienceId, contacts } });
    const broadcast = await createBroadcast(sender, { audienceId, content: '<p>{% for i in (1..count) %}.{% endfor %}</p>' });
    await request('POST', `/api/broadcasts/${broadcast.id}/send`, { key: sender.key, body: {} });
    await drainBroadcastQueue({ timeoutMs: 5_000 });

    const heavy = await request('GET', `/api/contacts/email/${encodeURIComponent(contacts[12]!.email)}?audienceId=${audienceId}`, { key: sender.key });
    await request('PATCH', `/api/contacts/${heavy.body.data.id}`, { key: sender.key, body: { customFields: { count: 1 } } });
    await drainBroadcastQueue();

    await expectSentOnceEach(
      sender,
      broadcast.id,
      contacts.map((contact) => contact.email),
    );
  });

  it('contacts that unsubscribe while it runs are skipped and counted suppressed', async () => {
    const { sender, broadcast, subscribed, leaving } = await plannedThenThreeLeave(30);

    await drainBroadcastQueue();

    await expectSkipped(sender, broadcast.id, subscribed, leaving);
  });

  it('pauses with QUOTA_EXCEEDED when the quota runs out, and resumes on send without repeating anyone', async () => {
    // 120 contacts, about 70 subscribed: the first batch of 50 and 10 of the second use the quota of 60 to its end.
    const { sender, broadcast, subscribed, send } = await started(120, { quota: 60 });

    await send();
    await drainBroadcastQueue();

    const paused = await broadcastWhen(sender.key, broadcast.id, ['paused']);
    expect(paused).toMatchObject({ status: 'paused', pausedReason: 'QUOTA_EXCEEDED', counts: { sent: 60 } });
    expect(await storedEmails(sender.domain)).toHaveLength(60);
    // A new month's quota, in effect.
    await releaseEmails(sender.accountId, quotaPeriod(new Date()), 50);

    const resumed = await send();
    await drainBroadcastQueue();

    expect(resumed.body.data).toMatchObject({ status: 'sending', pausedReason: null });
    expectOneEach(await storedEmails(sender.domain), subscribed);
    expect((await broadcastWhen(sender.key, broadcast.id, ['sent'])).counts).toMatchObject({ sent: subscribed.length, remaining: 0 });
  });
});
