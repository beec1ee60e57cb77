/**
 * Throttled sends end to end: the request queues the message on this test
 * file's retry queue (the local SQS stand-in), the worker the stack deploys
 * runs under the local poller, and the record moves queued → sent or failed.
 * Only SES throttling (and an SQS outage) is injected: the emulator and the
 * stand-in cannot produce them on demand.
 */
import { GetQueueAttributesCommand, PurgeQueueCommand, ReceiveMessageCommand, SendMessageCommand, type SendMessageCommandOutput } from '@aws-sdk/client-sqs';
import { TooManyRequestsException, type SendEmailCommand } from '@aws-sdk/client-sesv2';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DeleteObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { invokedAs } from '#dev/local/invocation.ts';
import { sqsEvent } from '#dev/local/queue-poller.ts';
import { startRetryWorker } from '#dev/local/retry-worker.ts';
import { handler as sendQueued } from '#functions/email/send-queued.ts';
import { config } from '#shared/platform/config.ts';
import { putEmailRecords, type EmailRecord } from '#shared/messages/store.ts';
import { putEmailContent } from '#shared/messages/content-store.ts';
import { queuedMessageKey, readQueuedMessage } from '#shared/sending/queued-message-store.ts';
import { trackingIdOf } from '#shared/sending/service.ts';
import { retentionExpiry } from '#shared/platform/retention.ts';
import { newId } from '#shared/platform/ids.ts';
import { showAccount } from '#shared/accounts/service.ts';
import { encodeQueuedSend, sqs } from '#shared/sending/retry-queue.ts';
import { ses } from '#shared/sending/transport.ts';
import { MAX_QUEUED_MESSAGE_BYTES, MAX_RECEIVES } from '#shared/sending/retry-policy.ts';
import { request } from '../support/api.ts';
import { eventually } from '../support/eventually.ts';
import { createSender, expectReplayed, expectSent, outgoingEmail, sendPlain, storedEmails, uniqueAddress } from './support.ts';
import { configureFile } from '../support/worker.ts';

// No waiting between attempts here; the backoff itself is tested on its own.
configureFile({ RETRY_BACKOFF_SECONDS: '0' });

// As Lambda runs it: its AWS calls are checked against this function's role (test/support/aws-calls.ts).
const handler = invokedAs('email/send-queued', sendQueued);

/** The test's own view of the local bucket (the code under test signs its requests itself). */
const attachmentsBucket = new S3Client({
  region: 'us-east-1',
  endpoint: config.S3_ENDPOINT,
  forcePathStyle: true,
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});

const queueUrl = config.RETRY_QUEUE_URL!;
const deadLetterQueueUrl = `${queueUrl}-dlq`;

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
  vi.restoreAllMocks();
  // Each test starts from empty queues: a message one test left must not reach the next one's worker.
  for (const url of [queueUrl, deadLetterQueueUrl]) await sqs.send(new PurgeQueueCommand({ QueueUrl: url }));
});

async function runWorker(): Promise<void> {
  stops.push((await startRetryWorker()).stop);
}

const throttled = () => new TooManyRequestsException({ message: 'Maximum sending rate exceeded.', $metadata: {} });

/** Throttles the SES calls whose recipient `throttles` names (every one by default); counts the calls per recipient. */
function throttleSes(throttles: (recipient: string) => boolean = () => true) {
  const calls = new Map<string, number>();
  const original = ses.send.bind(ses);
  vi.spyOn(ses, 'send').mockImplementation((async (command: SendEmailCommand) => {
    const recipient = command.input.Destination?.ToAddresses?.[0] ?? '';
    calls.set(recipient, (calls.get(recipient) ?? 0) + 1);
    if (throttles(recipient)) throw throttled();
    return original(command);
  }) as typeof ses.send);
  return calls;
}

async function visibleMessages(url: string): Promise<number> {
  const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['ApproximateNumberOfMessages'] }));
  return Number(Attributes?.ApproximateNumberOfMessages);
}

const emailOf = (key: string, id: string) => request('GET', `/api/emails/${id}`, { key }).then((response) => response.body.data);

describe('a throttled send', () => {
  it('answers queued, is delivered later by the worker, and its record shows queued, then sent', async () => {
    const sender = await createSender({ quota: 10 });
    const [ok, slow] = [uniqueAddress('ok'), uniqueAddress('slow')];
    const calls = throttleSes((recipient) => recipient === slow && calls.get(slow) === 1);

    const response = await sendPlain(sender, [ok, slow]);
    const queuedRecord = await emailOf(sender.key, response.body.successfulEmails[1].trackingId);
    await runWorker();
    const sentRecord = await eventually(
      () => emailOf(sender.key, queuedRecord.id),
      (email) => email.status !== 'queued',
    );

    expectSent(response, { message: 'Email sent to 2 recipients', sent: [ok, { queued: slow }], emailsRemaining: 8 });
    expect(queuedRecord).toMatchObject({ to: slow, status: 'queued', sesMessageId: null, error: null });
    expect(sentRecord).toMatchObject({ status: 'sent', sesMessageId: expect.any(String) });
    const delivered = await storedEmails(sender.domain);
    expect(delivered.map((email) => email.destination.to)).toEqual([[ok], [slow]]);
    expect(delivered[1]!.messageId).toBe(sentRecord.sesMessageId);
    // Charged once, when queued; the worker's send charges nothing more.
    expect(await showAccount(sender.accountId)).toMatchObject({ emailsSent: 2 });
  });

  it('answers queued: true on the single sends, and an idempotent replay returns that same answer', async () => {
    const sender = await createSender({ quota: 10 });
    const body = { from: sender.from, to: uniqueAddress(), code: '4321', idempotencyKey: 'throttled-login' };
    throttleSes();

    const first = await request('POST', '/api/otp/send', { key: sender.key, body });
    const replay = await request('POST', '/api/otp/send', { key: sender.key, body });

    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      success: true,
      message: expect.any(String),
      trackingId: expect.stringMatching(/^svc_/),
      emailId: expect.stringMatching(/^eml_/),
      queued: true,
    });
    expectReplayed(replay, first);
    expect(await visibleMessages(queueUrl)).toBe(1);
    expect(await showAccount(sender.accountId)).toMatchObject({ emailsSent: 1 });

    vi.restoreAllMocks();
    await runWorker();
    const record = await eventually(
      () => emailOf(sender.key, first.body.emailId),
      (email) => email.status !== 'queued',
    );
    expect(record).toMatchObject({ status: 'sent', type: 'otp' });
    expect(await storedEmails(sender.domain)).toHaveLength(1);
  });

  it('keeps its content from the request: the worker that sends it later neither loses it nor writes it again', async () => {
    const sender = await createSender({ quota: 10 });
    throttleSes();
    const response = await request('POST', '/api/transactional/send', {
      key: sender.key,
      body: { from: sender.from, to: uniqueAddress(), subject: 'Receipt', content: '<p>Paid</p>' },
    });
    const { emailId } = response.body;
    const kept = await request('GET', `/api/emails/${emailId}/content`, { key: sender.key });
    expect(kept.body.data).toMatchObject({ subject: 'Receipt', html: '<p>Paid</p>' });
    // A mark of the test's own in its place: a second write by the worker would replace it.
    await putEmailContent(sender.accountId, emailId, { ...kept.body.data, subject: 'as stored at the request' });

    vi.restoreAllMocks();
    await runWorker();
    await eventually(
      () => emailOf(sender.key, emailId),
      (email) => email.status === 'sent',
    );

    const after = await request('GET', `/api/emails/${emailId}/content`, { key: sender.key });
    expect(after.body.data).toEqual({ ...kept.body.data, subject: 'as stored at the request' });
  });

  it('that keeps being throttled ends failed after the last attempt, refunded, in the dead-letter queue', async () => {
    const sender = await createSender({ quota: 10 });
    const to = uniqueAddress();
    const calls = throttleSes();

    const response = await request('POST', '/api/transactional/send', {
      key: sender.key,
      body: { from: sender.from, to, subject: 'Receipt', content: '<p>Paid</p>' },
    });
    const charged = await showAccount(sender.accountId);
    await runWorker();
    const record = await eventually(
      () => emailOf(sender.key, response.body.emailId),
      (email) => email.status !== 'queued',
    );
    const deadLetters = await eventually(
      () => visibleMessages(deadLetterQueueUrl),
      (count) => count > 0,
    );

    expect(response.body).toMatchObject({ success: true, queued: true });
    expect(charged).toMatchObject({ emailsSent: 1 });
    expect(record).toMatchObject({
      status: 'failed',
      error: { code: 'SES_THROTTLED', message: expect.stringContaining(`after ${MAX_RECEIVES + 1} attempts`) },
    });
    // The request's try, then one per receive up to the queue's maxReceiveCount.
    expect(calls.get(to)).toBe(MAX_RECEIVES + 1);
    expect(await showAccount(sender.accountId)).toMatchObject({ emailsSent: 0 });
    expect(deadLetters).toBe(1);
    expect(await visibleMessages(queueUrl)).toBe(0);
    expect(await storedEmails(sender.domain)).toEqual([]);
  });

  it('of a bcc copy that keeps being throttled refunds nothing: copies were never charged', async () => {
    const sender = await createSender({ quota: 10 });
    const [to, bcc] = [uniqueAddress('to'), uniqueAddress('bcc')];
    throttleSes((recipient) => recipient === bcc);

    const response = await request('POST', '/api/email/send', {
      key: sender.key,
      body: { from: sender.from, recipients: [to], bcc: [bcc], subject: 'Hi', content: '<a href="{{unsubscribeUrl}}">Leave</a>' },
    });
    const copy = response.body.successfulEmails.find((sent: { recipient: string }) => sent.recipient === bcc);
    await runWorker();
    const record = await eventually(
      () => emailOf(sender.key, copy.trackingId),
      (email) => email.status !== 'queued',
    );

    expect(copy).toMatchObject({ queued: true });
    expect(record).toMatchObject({ to: bcc, status: 'failed', error: { code: 'SES_THROTTLED' } });
    // The recipient's message stays charged; the copy's final failure gives back nothing it never took.
    expect(await showAccount(sender.accountId)).toMatchObject({ emailsSent: 1 });
  });

  it('too large for one SQS message is kept in the bucket, queued as a pointer, and delivered whole by the worker', async () => {
    const sender = await createSender({ quota: 10 });
    const to = uniqueAddress();
    const calls = throttleSes((recipient) => recipient === to && calls.get(to) === 1);
    // 900 KB of attachment is 1.2 MB in the queue's JSON (base64): past SQS's 1 MiB.
    const content = Buffer.alloc(900 * 1024, 7).toString('base64');
    const attachment = { filename: 'big.bin', contentType: 'application/octet-stream', content };

    const response = await request('POST', '/api/email/send', {
      key: sender.key,
      body: { from: sender.from, recipients: [to], subject: 'Big', content: '<p>Big</p>', attachments: [attachment] },
    });
    const [queued] = (await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 0 }))).Messages ?? [];
    const emailId = (await emailOf(sender.key, response.body.successfulEmails[0].trackingId)).id;
    const stored = await readQueuedMessage(sender.accountId, emailId);
    await runWorker();
    const record = await eventually(
      () => emailOf(sender.key, emailId),
      (email) => email.status !== 'queued',
    );

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ successfulEmails: [{ recipient: to, queued: true }], emailsRemaining: 9 });
    expect(JSON.parse(queued!.Body!)).toEqual({ version: 1, accountId: sender.accountId, emailId, period: expect.any(String), stored: true });
    expect(Buffer.byteLength(stored!)).toBeGreaterThan(MAX_QUEUED_MESSAGE_BYTES);
    expect(record).toMatchObject({ status: 'sent', sesMessageId: expect.any(String) });
    const [delivered] = await storedEmails(sender.domain);
    expect(delivered!.attachments).toMatchObject([{ filename: 'big.bin', size: 900 * 1024 }]);
    expect(await showAccount(sender.accountId)).toMatchObject({ emailsSent: 1 });
  });

  it('stored messages of one batch are sent one at a time, each whole', async () => {
    const sender = await createSender({ quota: 10 });
    const [first, second] = [uniqueAddress('first'), uniqueAddress('second')];
    // Throttled once each (stored and queued), then counted in flight on their way to the emulator.
    const attempts = new Map<string, number>();
    let inFlight = 0;
    let mostInFlight = 0;
    const original = ses.send.bind(ses);
    vi.spyOn(ses, 'send').mockImplementation((async (command: SendEmailCommand) => {
      const recipient = command.input.Destination?.ToAddresses?.[0] ?? '';
      attempts.set(recipient, (attempts.get(recipient) ?? 0) + 1);
      if (attempts.get(recipient) === 1) throw throttled();
      inFlight++;
      mostInFlight = Math.max(mostInFlight, inFlight);
      try {
        await new Promise((resolve) => setTimeout(resolve, 50));
        return await original(command);
      } finally {
        inFlight--;
      }
    }) as typeof ses.send);
    const attachment = { filename: 'big.bin', contentType: 'application/octet-stream', content: Buffer.alloc(900 * 1024, 7).toString('base64') };

    const response = await request('POST', '/api/email/send', {
      key: sender.key,
      body: { from: sender.from, recipients: [first, second], subject: 'Big', content: '<p>Big</p>', attachments: [attachment] },
    });
    await eventually(
      () => visibleMessages(queueUrl),
      (count) => count === 2,
    );
    await runWorker();
    const records = await eventually(
      () => Promise.all(response.body.successfulEmails.map((sent: { trackingId: string }) => emailOf(sender.key, sent.trackingId))),
      (all) => all.every((email) => email.status !== 'queued'),
    );

    expect(records.map((email) => email.status)).toEqual(['sent', 'sent']);
    expect(mostInFlight).toBe(1);
    expect((await storedEmails(sender.domain)).map((email) => email.attachments[0]!.size)).toEqual([900 * 1024, 900 * 1024]);
  });

  it('a stored message gone from the bucket fails its record for good and gives its email back', async () => {
    const sender = await createSender({ quota: 10 });
    const to = uniqueAddress();
    throttleSes();
    const attachment = { filename: 'big.bin', contentType: 'application/octet-stream', content: Buffer.alloc(900 * 1024, 7).toString('base64') };

    const response = await request('POST', '/api/email/send', {
      key: sender.key,
      body: { from: sender.from, recipients: [to], subject: 'Big', content: '<p>Big</p>', attachments: [attachment] },
    });
    const emailId = (await emailOf(sender.key, response.body.successfulEmails[0].trackingId)).id;
    await attachmentsBucket.send(new DeleteObjectCommand({ Bucket: config.ATTACHMENTS_BUCKET, Key: queuedMessageKey(sender.accountId, emailId) }));
    await runWorker();
    const record = await eventually(
      () => emailOf(sender.key, emailId),
      (email) => email.status !== 'queued',
    );

    expect(record).toMatchObject({ status: 'failed', error: { code: 'SEND_FAILED' } });
    expect(await showAccount(sender.accountId)).toMatchObject({ emailsSent: 0 });
    expect(await visibleMessages(queueUrl)).toBe(0);
  });

  it('too large for the queue, with the bucket refusing it too, fails as SES_THROTTLED, uncharged, as without a queue', async () => {
    const sender = await createSender({ quota: 10 });
    const to = uniqueAddress();
    throttleSes();
    // The bucket cannot be made to refuse on demand: an S3 that answers 503 to every request stands in.
    const failing = createServer((req, res) => req.resume().on('end', () => res.writeHead(503).end('<Error><Code>ServiceUnavailable</Code></Error>')));
    failing.listen(0, '127.0.0.1');
    await once(failing, 'listening');
    const realEndpoint = config.S3_ENDPOINT;
    config.S3_ENDPOINT = `http://127.0.0.1:${(failing.address() as AddressInfo).port}`;
    const attachment = { filename: 'big.bin', contentType: 'application/octet-stream', content: Buffer.alloc(900 * 1024, 7).toString('base64') };

    try {
      const response = await request('POST', '/api/email/send', {
        key: sender.key,
        body: { from: sender.from, recipients: [to], subject: 'Big', content: '<p>Big</p>', attachments: [attachment] },
      });

      expect(response.status).toBe(422);
      expect(response.body).toMatchObject({ error: 'ALL_RECIPIENTS_FAILED', failedEmails: [{ recipient: to, error: 'SES_THROTTLED' }], emailsRemaining: 10 });
      expect(await visibleMessages(queueUrl)).toBe(0);
      expect(await showAccount(sender.accountId)).toMatchObject({ emailsSent: 0 });
    } finally {
      config.S3_ENDPOINT = realEndpoint;
      failing.close();
    }
  });

  it('the queue refuses (SQS down) fails as SES_THROTTLED, its record failed and its email refunded', async () => {
    const sender = await createSender({ quota: 10 });
    throttleSes();
    vi.spyOn(sqs, 'send').mockImplementation((async () => {
      throw Object.assign(new Error('Service unavailable'), { name: 'ServiceUnavailable' });
    }) as typeof sqs.send);

    const response = await request('POST', '/api/transactional/send', {
      key: sender.key,
      body: { from: sender.from, to: uniqueAddress(), subject: 'S', content: '<p>S</p>' },
    });

    expect(response.status).toBe(503);
    expect(response.body).toMatchObject({ error: 'SES_THROTTLED', retryAfter: 1 });
    expect(await emailOf(sender.key, response.body.emailId)).toMatchObject({ status: 'failed', error: { code: 'SES_THROTTLED' } });
    expect(await showAccount(sender.accountId)).toMatchObject({ emailsSent: 0 });
  });
});

describe('the worker', () => {
  it('reports only the messages still throttled as batch item failures, and settles the others', async () => {
    const sender = await createSender({ quota: 10 });
    const [ok, slow] = [uniqueAddress('ok'), uniqueAddress('slow')];
    throttleSes();
    const response = await sendPlain(sender, [ok, slow]);
    const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, MessageSystemAttributeNames: ['All'] }));
    const event = sqsEvent(Messages, 'arn:aws:sqs:us-east-1:000000000000:retry', 'us-east-1');
    vi.restoreAllMocks();
    throttleSes((recipient) => recipient === slow);

    const result = await handler(event);

    const slowMessage = event.Records.find((record) => JSON.parse(record.body).email.to[0] === slow)!;
    expect(event.Records).toHaveLength(2);
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: slowMessage.messageId }] });
    const [okEmail, slowEmail] = response.body.successfulEmails as { trackingId: string }[];
    expect(await emailOf(sender.key, okEmail!.trackingId)).toMatchObject({ status: 'sent' });
    expect(await emailOf(sender.key, slowEmail!.trackingId)).toMatchObject({ status: 'queued' });
  });

  it('does not send again a message whose record is already settled (SQS delivers at least once)', async () => {
    const sender = await createSender({ quota: 10 });
    const calls = throttleSes((recipient) => calls.get(recipient) === 1);
    const response = await request('POST', '/api/transactional/send', {
      key: sender.key,
      body: { from: sender.from, to: uniqueAddress(), subject: 'S', content: '<p>S</p>' },
    });
    const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MessageSystemAttributeNames: ['All'] }));
    const event = sqsEvent(Messages, 'arn:aws:sqs:us-east-1:000000000000:retry', 'us-east-1');

    const first = await handler(event);
    const again = await handler(event);

    expect(first).toEqual({ batchItemFailures: [] });
    expect(again).toEqual({ batchItemFailures: [] });
    expect(await storedEmails(sender.domain)).toHaveLength(1);
    expect(await emailOf(sender.key, response.body.emailId)).toMatchObject({ status: 'sent' });
  });

  it("never sends a test key's message: a test send is never queued, and a queued test record is settled without SES", async () => {
    const sender = await createSender({ quota: 10 });
    const calls = throttleSes();
    const tested = await request('POST', '/api/email/send', {
      key: sender.testKey,
      body: { from: sender.from, recipients: [uniqueAddress()], subject: 'Test', content: '<p>Test</p>' },
    });
    // However a test message came to be queued (no path queues one today), its record says what it is.
    const emailId = newId('eml', Date.now());
    const email = outgoingEmail({ from: { address: sender.from }, to: [uniqueAddress('queued')], tags: { accountId: sender.accountId, emailId } });
    const record: EmailRecord = {
      emailId,
      trackingId: trackingIdOf(emailId, new Date()),
      type: 'email',
      from: sender.from,
      to: email.to[0]!,
      cc: [],
      bcc: [],
      subject: 'S',
      status: 'queued',
      test: true,
      createdAt: new Date().toISOString(),
    };
    await putEmailRecords(sender.accountId, [record], retentionExpiry(Date.now()));
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: encodeQueuedSend({ accountId: sender.accountId, emailId, email }) }));
    const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, MessageSystemAttributeNames: ['All'] }));

    const result = await handler(sqsEvent(Messages, 'arn:aws:sqs:us-east-1:000000000000:retry', 'us-east-1'));

    expect(tested.body.successfulEmails).toEqual([{ recipient: expect.any(String), trackingId: expect.any(String) }]);
    expect(Messages).toHaveLength(1);
    expect(result).toEqual({ batchItemFailures: [] });
    expect(calls.size).toBe(0);
    expect(await emailOf(sender.key, emailId)).toMatchObject({ status: 'sent', test: true, sesMessageId: null });
    expect(await showAccount(sender.accountId)).toMatchObject({ emailsSent: 0 });
  });

  it('keeps a message it cannot read for the dead-letter queue, without failing the batch', async () => {
    const sent: SendMessageCommandOutput = await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: '{"version":2}' }));
    const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MessageSystemAttributeNames: ['All'] }));

    const result = await handler(sqsEvent(Messages, 'arn:aws:sqs:us-east-1:000000000000:retry', 'us-east-1'));

    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: sent.MessageId }] });
  });
});
