/**
 * Faults the SES emulator cannot produce (throttling, rejection, a paused
 * account, an outage), injected on the transport's client; everything else
 * is real.
 */
import { MessageRejected, SendingPausedException, TooManyRequestsException, type SendEmailCommand } from '@aws-sdk/client-sesv2';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { config } from '#shared/platform/config.ts';
import { showAccount } from '#shared/accounts/service.ts';
import { sqs } from '#shared/sending/retry-queue.ts';
import { ses } from '#shared/sending/transport.ts';
import { request } from '../support/api.ts';
import { createSender, expectSent, sendPlain, storedEmails, uniqueAddress } from './support.ts';
import { injectDynamoFault, INTERNAL_ERROR } from '../faults/support.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

type Fault = Error | undefined;

/** Fails the SES calls whose recipient `faultFor` names; the others reach the emulator. */
function injectSesFaults(faultFor: (recipient: string) => Fault) {
  const original = ses.send.bind(ses);
  return vi.spyOn(ses, 'send').mockImplementation((async (command: SendEmailCommand) => {
    const fault = faultFor(command.input.Destination?.ToAddresses?.[0] ?? '');
    if (fault) throw fault;
    return original(command);
  }) as typeof ses.send);
}

const throttled = () => new TooManyRequestsException({ message: 'Maximum sending rate exceeded.', $metadata: {} });
const rejected = () => new MessageRejected({ message: 'Email address is not verified.', $metadata: {} });
const paused = () => new SendingPausedException({ message: 'Sending is paused for this account.', $metadata: {} });

describe('SES faults on POST /api/email/send', () => {
  it('report rejected recipients in failedEmails, queue throttled ones, and charge only what SES took or the queue holds', async () => {
    const sender = await createSender({ quota: 10 });
    const [ok, slow, refused] = [uniqueAddress('ok'), uniqueAddress('slow'), uniqueAddress('refused')];
    injectSesFaults((recipient) => (recipient === slow ? throttled() : recipient === refused ? rejected() : undefined));

    const response = await sendPlain(sender, [ok, slow, refused]);

    expectSent(response, {
      message: 'Email sent to 2 of 3 recipients',
      sent: [ok, { queued: slow }],
      failed: [{ recipient: refused, error: 'MESSAGE_REJECTED', message: 'SES rejected the message: Email address is not verified.' }],
      emailsRemaining: 8,
    });
    expect(await showAccount(sender.accountId)).toMatchObject({ emailsSent: 2 });
    expect((await storedEmails(sender.domain)).map((email) => email.destination.to)).toEqual([[ok]]);
  });

  it('answers ALL_RECIPIENTS_FAILED when SES takes none, charging nothing', async () => {
    const sender = await createSender({ quota: 10 });
    injectSesFaults(rejected);

    const response = await sendPlain(sender, [uniqueAddress(), uniqueAddress()]);

    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ success: false, error: 'ALL_RECIPIENTS_FAILED', successfulEmails: [], recipientCount: 2, emailsRemaining: 10 });
    expect(response.body.failedEmails.map((item: { error: string }) => item.error)).toEqual(['MESSAGE_REJECTED', 'MESSAGE_REJECTED']);
    expect(await showAccount(sender.accountId)).toMatchObject({ emailsSent: 0 });
  });

  it('answers 503 SENDING_PAUSED when SES sending is paused for the deployment', async () => {
    const sender = await createSender({ quota: 10 });
    injectSesFaults(paused);

    const response = await sendPlain(sender, [uniqueAddress()]);

    expect(response.status).toBe(503);
    expect(response.body).toMatchObject({ success: false, error: 'SENDING_PAUSED', emailsRemaining: 10, failedEmails: [{ error: 'SENDING_PAUSED' }] });
  });

  it("keeps the other recipients' outcomes when one SES call fails unexpectedly", async () => {
    const sender = await createSender({ quota: 10 });
    const [ok, broken] = [uniqueAddress('ok'), uniqueAddress('broken')];
    injectSesFaults((recipient) => (recipient === broken ? new Error('socket hang up') : undefined));

    const response = await sendPlain(sender, [ok, broken]);

    expect(response.status).toBe(200);
    expect(response.body.failedEmails).toEqual([{ recipient: broken, error: 'SEND_FAILED', message: 'The message could not be handed to SES; send it again' }]);
    expect(response.body.emailsRemaining).toBe(9);
  });
});

describe('SES faults on the single-recipient sends', () => {
  it('answer 503 SES_THROTTLED with Retry-After when the retry queue cannot take the message, charge nothing, record the failure and free the idempotency key', async () => {
    const sender = await createSender({ quota: 10 });
    const body = { from: sender.from, to: uniqueAddress(), code: '1234', idempotencyKey: 'throttled' };
    injectSesFaults(throttled);
    vi.spyOn(sqs, 'send').mockImplementation((async () => {
      throw Object.assign(new Error('Service unavailable'), { name: 'ServiceUnavailable' });
    }) as typeof sqs.send);

    const response = await request('POST', '/api/otp/send', { key: sender.key, body });
    vi.restoreAllMocks();
    const retried = await request('POST', '/api/otp/send', { key: sender.key, body });

    expect(response.status).toBe(503);
    expect(response.body).toEqual({
      success: false,
      error: 'SES_THROTTLED',
      message: expect.any(String),
      retryAfter: 1,
      emailId: expect.stringMatching(/^eml_/),
      trackingId: expect.stringMatching(/^svc_/),
    });
    expect(response.headers.get('retry-after')).toBe('1');
    const record = await request('GET', `/api/emails/${response.body.emailId}`, { key: sender.key });
    expect(record.body.data).toMatchObject({ status: 'failed', error: { code: 'SES_THROTTLED' } });
    expect(retried.status).toBe(200);
    expect(retried.body.emailId).not.toBe(response.body.emailId);
    expect(await showAccount(sender.accountId)).toMatchObject({ emailsSent: 1 });
  });

  it('answer 422 MESSAGE_REJECTED naming the recipient field', async () => {
    const sender = await createSender();
    injectSesFaults(rejected);

    const response = await request('POST', '/api/transactional/send', {
      key: sender.key,
      body: { from: sender.from, to: uniqueAddress(), subject: 'S', content: '<p>S</p>' },
    });

    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ error: 'MESSAGE_REJECTED', field: 'to' });
  });

  it('answer 500 for an unexpected SES failure, giving the quota back', async () => {
    const sender = await createSender({ quota: 10 });
    injectSesFaults(() => Object.assign(new Error('We encountered an internal error'), { name: 'InternalServiceErrorException' }));

    const response = await request('POST', '/api/transactional/send', {
      key: sender.key,
      body: { from: sender.from, to: uniqueAddress(), subject: 'S', content: '<p>S</p>' },
    });

    expect(response.status).toBe(500);
    expect(response.body).toEqual({ success: false, error: 'INTERNAL_ERROR', message: 'An unexpected error occurred; retry the request' });
    expect(await showAccount(sender.accountId)).toMatchObject({ emailsSent: 0 });
  });
});

describe("DynamoDB failing after SES took some of a send's messages", () => {
  const queuedMessages = async () =>
    Number(
      (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: config.RETRY_QUEUE_URL!, AttributeNames: ['ApproximateNumberOfMessages'] }))).Attributes
        ?.ApproximateNumberOfMessages,
    );

  it('reports a throttled message whose record was never written as failed, never as queued, in the answer an idempotent retry replays', async () => {
    const sender = await createSender({ quota: 10 });
    const [ok, slow] = [uniqueAddress('ok'), uniqueAddress('slow')];
    injectSesFaults((recipient) => (recipient === slow ? throttled() : undefined));
    injectDynamoFault({ command: 'BatchWriteItemCommand', touching: sender.accountId, fault: 'throttled' });
    const queuedBefore = await queuedMessages();
    const body = { from: sender.from, recipients: [ok, slow], subject: 'Hi', content: '<p>Hi</p>', idempotencyKey: 'half-throttled' };

    const failed = await request('POST', '/api/email/send', { key: sender.key, body });
    const retried = await request('POST', '/api/email/send', { key: sender.key, body });

    expect(failed).toMatchObject({ status: 500, body: INTERNAL_ERROR });
    expect([retried.status, retried.headers.get('idempotent-replayed')]).toEqual([200, 'true']);
    expect(retried.body).toMatchObject({ successfulEmails: [{ recipient: ok }], failedEmails: [{ recipient: slow, error: 'SES_THROTTLED' }] });
    expect(retried.body.successfulEmails[0]).not.toHaveProperty('queued');
    expect(await queuedMessages()).toBe(queuedBefore);
    expect(await showAccount(sender.accountId)).toMatchObject({ emailsSent: 1 });
  });

  it("answers the send when giving back a refused message's charge fails, keeping that charge, rather than failing a request whose mail left", async () => {
    const sender = await createSender({ quota: 10 });
    const [ok, refused] = [uniqueAddress('ok'), uniqueAddress('refused')];
    injectSesFaults((recipient) => (recipient === refused ? rejected() : undefined));
    // The first usage update reserves both emails; the second would give one back.
    injectDynamoFault({ command: 'UpdateItemCommand', touching: '#USAGE', nth: 2, fault: 'throttled' });

    const response = await sendPlain(sender, [ok, refused]);

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      successfulEmails: [{ recipient: ok }],
      failedEmails: [{ recipient: refused, error: 'MESSAGE_REJECTED' }],
      emailsRemaining: 8,
    });
    expect(await showAccount(sender.accountId)).toMatchObject({ emailsSent: 2 });
    expect(await storedEmails(sender.domain)).toHaveLength(1);
  });

  it('answers the send when the retry queue refuses a message and settling its record fails too, rather than failing a request whose mail left', async () => {
    const sender = await createSender({ quota: 10 });
    const [ok, slow] = [uniqueAddress('ok'), uniqueAddress('slow')];
    injectSesFaults((recipient) => (recipient === slow ? throttled() : undefined));
    vi.spyOn(sqs, 'send').mockImplementation((async () => {
      throw Object.assign(new Error('Service unavailable'), { name: 'ServiceUnavailable' });
    }) as typeof sqs.send);
    injectDynamoFault({ command: 'TransactWriteItemsCommand', touching: sender.accountId, fault: 'throttled' });

    const response = await sendPlain(sender, [ok, slow]);

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ successfulEmails: [{ recipient: ok }], failedEmails: [{ recipient: slow, error: 'SES_THROTTLED' }] });
    expect(await storedEmails(sender.domain)).toHaveLength(1);
  });
});

describe('SES faults on the own messages of cc and bcc (content with signed links)', () => {
  const WITH_LINKS = '<p><a href="{{unsubscribeUrl}}">Unsubscribe</a></p>';

  it("sends no copy when SES takes no recipient's message, and charges nothing", async () => {
    const sender = await createSender({ quota: 10 });
    const [ann, carl] = [uniqueAddress('ann'), uniqueAddress('carl')];
    injectSesFaults((recipient) => (recipient === ann ? rejected() : undefined));

    const response = await request('POST', '/api/email/send', {
      key: sender.key,
      body: { from: sender.from, recipients: [ann], cc: [carl], subject: 'Hi', content: WITH_LINKS },
    });

    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({
      error: 'ALL_RECIPIENTS_FAILED',
      successfulEmails: [],
      failedEmails: [{ recipient: ann, error: 'MESSAGE_REJECTED' }],
      emailsRemaining: 10,
    });
    expect(await showAccount(sender.accountId)).toMatchObject({ emailsSent: 0 });
    expect(await storedEmails(sender.domain)).toEqual([]);
  });

  it('reports a refused copy in failedEmails without failing the send, and charges the recipient only', async () => {
    const sender = await createSender({ quota: 10 });
    const [ann, carl, bea] = [uniqueAddress('ann'), uniqueAddress('carl'), uniqueAddress('bea')];
    injectSesFaults((recipient) => (recipient === bea ? rejected() : undefined));

    const response = await request('POST', '/api/email/send', {
      key: sender.key,
      body: { from: sender.from, recipients: [ann], cc: [carl], bcc: [bea], subject: 'Hi', content: WITH_LINKS },
    });

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      message: 'Email sent to 1 recipient',
      successfulEmails: [{ recipient: ann }, { recipient: carl }],
      failedEmails: [{ recipient: bea, error: 'MESSAGE_REJECTED' }],
      recipientCount: 1,
      emailsRemaining: 9,
    });
    expect(await showAccount(sender.accountId)).toMatchObject({ emailsSent: 1 });
  });
});
