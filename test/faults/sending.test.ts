/**
 * DynamoDB faults at each step of a send: before the message leaves, nothing
 * is sent, charged or held (the idempotency key is given back); after it left,
 * the charge stays with the message and the idempotency key replays it, so a
 * retry never sends twice.
 */
import { describe, expect, it } from 'vitest';
import { showAccount } from '#shared/accounts/service.ts';
import { request } from '../support/api.ts';
import { createSender, type Sender, sendPlain, storedEmails, uniqueAddress } from '../sending/support.ts';
import { injectDynamoFault, INTERNAL_ERROR, type FaultRule } from './support.ts';

function otpBody(sender: Sender, idempotencyKey: string) {
  return { from: sender.from, to: uniqueAddress(), code: '123456', idempotencyKey };
}

async function emailsSent(sender: Sender): Promise<number> {
  return (await showAccount(sender.accountId))!.emailsSent;
}

describe('OTP send with an idempotency key under DynamoDB faults', () => {
  const beforeTheMessageLeaves: [string, (sender: Sender) => Omit<FaultRule, 'fault'>][] = [
    ['the idempotency claim', (sender) => ({ command: 'PutItemCommand', touching: `${sender.accountId}#IDEM` })],
    ['the OTP window', (sender) => ({ command: 'UpdateItemCommand', touching: `${sender.accountId}#OTP` })],
    ['the quota charge', () => ({ command: 'UpdateItemCommand', touching: '#USAGE' })],
  ];

  it.each(beforeTheMessageLeaves)('a fault on %s: 500, nothing sent or charged, and the same key sends once on retry', async (_, step) => {
    const sender = await createSender();
    const body = otpBody(sender, 'first-try');
    injectDynamoFault({ ...step(sender), fault: 'throttled' });

    const failed = await request('POST', '/api/otp/send', { key: sender.key, body });
    expect(failed).toMatchObject({ status: 500, body: INTERNAL_ERROR });
    expect(await storedEmails(sender.domain)).toHaveLength(0);
    expect(await emailsSent(sender)).toBe(0);

    const retried = await request('POST', '/api/otp/send', { key: sender.key, body });
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(await storedEmails(sender.domain)).toHaveLength(1);
    expect(await emailsSent(sender)).toBe(1);
  });

  it('a fault on the email record after SES took the message: 500, charged once, and a retry replays instead of sending again', async () => {
    const sender = await createSender();
    const body = otpBody(sender, 'sent-unrecorded');
    injectDynamoFault({ command: 'BatchWriteItemCommand', touching: sender.accountId, fault: 'timeout' });

    const failed = await request('POST', '/api/otp/send', { key: sender.key, body });
    const retried = await request('POST', '/api/otp/send', { key: sender.key, body });

    expect(failed).toMatchObject({ status: 500, body: INTERNAL_ERROR });
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(retried.body).toMatchObject({ success: true, queued: false, emailId: expect.stringMatching(/^eml_/) });
    expect(await storedEmails(sender.domain)).toHaveLength(1);
    expect(await emailsSent(sender)).toBe(1);
  });

  it("completes the key in the records' own write: a fault on a completion call of its own changes nothing, and a retry replays", async () => {
    const sender = await createSender();
    const body = otpBody(sender, 'sent-completed-in-band');
    injectDynamoFault({ command: 'UpdateItemCommand', touching: `${sender.accountId}#IDEM`, fault: 'throttled' });

    const sent = await request('POST', '/api/otp/send', { key: sender.key, body });
    const retried = await request('POST', '/api/otp/send', { key: sender.key, body });

    expect(sent).toMatchObject({ status: 200, body: { success: true } });
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(retried.body).toEqual(sent.body);
    expect(await storedEmails(sender.domain)).toHaveLength(1);
  });
});

/**
 * A send to two recipients from a new sender (quota 10) under the fault
 * `inject` sets up: the answer, how many messages reached SES and how many
 * emails the account was charged.
 */
async function sendTwoUnder(inject: (sender: Sender) => unknown) {
  const sender = await createSender({ quota: 10 });
  inject(sender);
  const failed = await sendPlain(sender, [uniqueAddress(), uniqueAddress()]);
  return { failed, delivered: (await storedEmails(sender.domain)).length, charged: await emailsSent(sender) };
}

describe('POST /api/email/send under DynamoDB faults', () => {
  it('a fault on the quota charge: 500, nothing sent or charged', async () => {
    const { failed, delivered, charged } = await sendTwoUnder(() => injectDynamoFault({ command: 'UpdateItemCommand', touching: '#USAGE', fault: 'timeout' }));

    expect(failed).toMatchObject({ status: 500, body: INTERNAL_ERROR });
    expect(delivered).toBe(0);
    expect(charged).toBe(0);
  });

  it('a charge applied whose answer was lost: 500, nothing sent, and the charge stays (never more than the quota)', async () => {
    const { failed, delivered, charged } = await sendTwoUnder(() =>
      injectDynamoFault({ command: 'UpdateItemCommand', touching: '#USAGE', fault: 'timeout', after: true }),
    );

    expect(failed.status).toBe(500);
    expect(delivered).toBe(0);
    // The one partial state a lost answer can leave: charged for two unsent emails, on the safe side of the quota.
    expect(charged).toBe(2);
  });

  it('a fault on the records after SES took the messages: 500, and the charge equals what was sent', async () => {
    const { failed, delivered, charged } = await sendTwoUnder((sender) =>
      injectDynamoFault({ command: 'BatchWriteItemCommand', touching: sender.accountId, fault: 'throttled' }),
    );

    expect(failed).toMatchObject({ status: 500, body: INTERNAL_ERROR });
    expect(delivered).toBe(2);
    expect(charged).toBe(2);
  });

  it('the same, with an idempotency key: a retry replays what was sent instead of sending it again', async () => {
    const sender = await createSender({ quota: 10 });
    const body = { from: sender.from, recipients: [uniqueAddress(), uniqueAddress()], subject: 'Hi', content: '<p>Hi</p>', idempotencyKey: 'newsletter-42' };
    injectDynamoFault({ command: 'BatchWriteItemCommand', touching: sender.accountId, fault: 'throttled' });

    const failed = await request('POST', '/api/email/send', { key: sender.key, body });
    const retried = await request('POST', '/api/email/send', { key: sender.key, body });

    expect(failed).toMatchObject({ status: 500, body: INTERNAL_ERROR });
    expect([retried.status, retried.headers.get('idempotent-replayed')]).toEqual([200, 'true']);
    expect(retried.body).toMatchObject({
      success: true,
      successfulEmails: [{ recipient: body.recipients[0] }, { recipient: body.recipients[1] }],
      failedEmails: [],
    });
    expect(await storedEmails(sender.domain)).toHaveLength(2);
    expect(await emailsSent(sender)).toBe(2);
  });
});
