/**
 * The retry queue's dead letters: a message that reached them while its
 * record still says `queued` (the worker failed on its last receive before
 * settling it) is sent again by `admin retry replay` once the cause is fixed,
 * or given up on by `admin retry settle`: failed, refunded once.
 */
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { TooManyRequestsException } from '@aws-sdk/client-sesv2';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { showAccount } from '#shared/accounts/service.ts';
import { config } from '#shared/platform/config.ts';
import { sqs } from '#shared/sending/retry-queue.ts';
import { ses } from '#shared/sending/transport.ts';
import { admin, freshQueue, messagesIn } from '../support/admin-cli.ts';
import { request } from '../support/api.ts';
import { eventually } from '../support/eventually.ts';
import { startRetryWorker } from '#dev/local/retry-worker.ts';
import { createSender, storedEmails, uniqueAddress } from './support.ts';
import { configureFile } from '../support/worker.ts';

// The throttled send is queued with no delay: waiting out the 10 s default backoff before each
// test can take its message proves nothing here (test/sending/retry-queue.test.ts covers the backoff).
configureFile({ RETRY_BACKOFF_SECONDS: '0' });

afterEach(() => vi.restoreAllMocks());

/** A throttled transactional send, its message taken off this file's retry queue as SQS would move it to the dead letters. */
async function deadLetteredSend() {
  const sender = await createSender({ quota: 10 });
  vi.spyOn(ses, 'send').mockRejectedValue(new TooManyRequestsException({ message: 'Maximum sending rate exceeded.', $metadata: {} }));
  const response = await request('POST', '/api/transactional/send', {
    key: sender.key,
    body: { from: sender.from, to: uniqueAddress(), subject: 'Receipt', content: '<p>Paid</p>' },
  });
  vi.restoreAllMocks();
  // Only this test's message: the file's queue is shared by its tests, so take ours by its email id.
  let body: string | undefined;
  while (!body) {
    const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: config.RETRY_QUEUE_URL!, MaxNumberOfMessages: 10, VisibilityTimeout: 600 }));
    body = Messages.map((message) => message.Body!).find((text) => text.includes(response.body.emailId));
  }
  return { sender, emailId: response.body.emailId as string, body };
}

describe('retry settle', () => {
  it('fails a record a dead letter left queued and refunds its email, once however often it is run', async () => {
    const { sender, emailId, body } = await deadLetteredSend();
    const deadLetters = await freshQueue('retry-dlq');
    await sqs.send(new SendMessageCommand({ QueueUrl: deadLetters, MessageBody: body }));
    await sqs.send(new SendMessageCommand({ QueueUrl: deadLetters, MessageBody: '{"version":1}' }));
    const charged = await showAccount(sender.accountId);

    const first = await admin(['retry', 'settle', '--queue', deadLetters]);
    await sqs.send(new SendMessageCommand({ QueueUrl: deadLetters, MessageBody: body }));
    const second = await admin(['retry', 'settle', '--queue', deadLetters]);

    expect(charged).toMatchObject({ emailsSent: 1 });
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(first.stdout)).toEqual({ replayed: 1, failed: 1, settled: 1 });
    // The unreadable one is still invisible from the first run: one run never sees a message twice.
    expect(JSON.parse(second.stdout)).toEqual({ replayed: 1, failed: 0, settled: 0 });
    const record = (await request('GET', `/api/emails/${emailId}`, { key: sender.key })).body.data;
    expect(record).toMatchObject({ status: 'failed', error: { code: 'SEND_FAILED', message: expect.any(String) } });
    expect(await showAccount(sender.accountId)).toMatchObject({ emailsSent: 0 });
    // The body it cannot read stays for the operator.
    expect(await messagesIn(deadLetters)).toBe(1);
  });
});

describe('retry replay', () => {
  it('puts back on the retry queue only what is still queued; the worker sends it once, charged once', async () => {
    const { sender, emailId, body } = await deadLetteredSend();
    const settled = await deadLetteredSend();
    await admin(['retry', 'settle', '--queue', await queueHolding(settled.body)]);
    const deadLetters = await queueHolding(body, settled.body);

    const replayed = await admin(['retry', 'replay', '--queue', deadLetters, '--to', config.RETRY_QUEUE_URL!]);
    const worker = await startRetryWorker();
    const record = await eventually(
      async () => (await request('GET', `/api/emails/${emailId}`, { key: sender.key })).body.data,
      (email) => email.status !== 'queued',
    );
    await worker.stop();
    const again = await admin(['retry', 'replay', '--queue', deadLetters, '--to', config.RETRY_QUEUE_URL!]);

    expect(replayed).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(replayed.stdout)).toEqual({ replayed: 2, failed: 0, requeued: 1 });
    expect(record).toMatchObject({ status: 'sent', sesMessageId: expect.any(String) });
    expect(await storedEmails(sender.domain)).toHaveLength(1);
    expect(await showAccount(sender.accountId)).toMatchObject({ emailsSent: 1 });
    // The one settled before stays failed and unsent; nothing is left to replay.
    expect((await request('GET', `/api/emails/${settled.emailId}`, { key: settled.sender.key })).body.data).toMatchObject({ status: 'failed' });
    expect(await storedEmails(settled.sender.domain)).toEqual([]);
    expect(JSON.parse(again.stdout)).toEqual({ replayed: 0, failed: 0, requeued: 0 });
  });

  it('refuses a --to that is not a queue URL, with one line', async () => {
    const result = await admin(['retry', 'replay', '--queue', await freshQueue('retry-dlq'), '--to', 'retry-queue']);

    expect(result.code).not.toBe(0);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('--to must be a queue URL');
  });
});

/** A fresh dead-letter queue holding these bodies. */
async function queueHolding(...bodies: string[]): Promise<string> {
  const queueUrl = await freshQueue('retry-dlq');
  for (const body of bodies) await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
  return queueUrl;
}
