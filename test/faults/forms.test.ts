/**
 * DynamoDB faults on a public form submission: the submission and the form's
 * counters are one transaction, so the analytics always equal what is stored;
 * the audience link follows the write and its failure does not undo it.
 */
import { TooManyRequestsException } from '@aws-sdk/client-sesv2';
import { describe, expect, it, vi } from 'vitest';
import { ses } from '#shared/sending/transport.ts';
import { request } from '../support/api.ts';
import { audienceCounters, recountAudience } from '../support/recount.ts';
import { createForm, submit } from '../forms/support.ts';
import { createSender, storedEmails, uniqueAddress } from '../sending/support.ts';
import { injectDynamoFault, INTERNAL_ERROR, type DynamoFault } from './support.ts';
import { accountWithAudience } from '../support/arrange.ts';

async function setup() {
  const { accountId, key, audienceId } = await accountWithAudience('Sign-ups');
  const form = await createForm(key, { audienceId });
  return { accountId, key, audienceId, formId: form.id as string };
}

async function stored(key: string, formId: string) {
  const [form, submissions] = await Promise.all([request('GET', '/api/forms', { key }), request('GET', `/api/forms/${formId}/submissions`, { key })]);
  return {
    counted: form.body.forms.find((listed: { id: string }) => listed.id === formId).analytics.submissions as number,
    listed: submissions.body.pagination.total as number,
  };
}

describe('form submission under DynamoDB faults', () => {
  it.each<DynamoFault>(['throttled', 'cancelled', 'timeout'])('%s on the submission: 500, nothing counted, stored or linked', async (fault) => {
    const { accountId, key, audienceId, formId } = await setup();
    injectDynamoFault({ command: 'TransactWriteItemsCommand', touching: formId, fault });

    const failed = await submit(formId, { email: 'ann@example.com' });

    expect(failed).toMatchObject({ status: 500, body: INTERNAL_ERROR });
    expect(await stored(key, formId)).toEqual({ counted: 0, listed: 0 });
    expect(await recountAudience(accountId, audienceId)).toMatchObject({ total: 0 });
  });

  it('a submission whose answer was lost is stored and counted together', async () => {
    const { key, formId } = await setup();
    injectDynamoFault({ command: 'TransactWriteItemsCommand', touching: formId, fault: 'timeout', after: true });

    expect((await submit(formId, { email: 'ann@example.com' })).status).toBe(500);

    expect(await stored(key, formId)).toEqual({ counted: 1, listed: 1 });
  });

  it('a fault while adding the submitter to the audience keeps the submission and leaves the audience counters exact', async () => {
    const { accountId, key, audienceId, formId } = await setup();
    injectDynamoFault({ command: 'TransactWriteItemsCommand', touching: audienceId, fault: 'throttled' });

    const accepted = await submit(formId, { email: 'ann@example.com' });

    expect(accepted.status).toBe(200);
    expect(await stored(key, formId)).toEqual({ counted: 1, listed: 1 });
    expect(await audienceCounters(accountId, audienceId)).toEqual(await recountAudience(accountId, audienceId));
    expect((await recountAudience(accountId, audienceId)).total).toBe(0);
  });

  it('SES throttling the notification keeps the submission, counted and stored', async () => {
    const sender = await createSender({ quota: 10 });
    const form = await createForm(sender.key, { settings: { notifyEmail: uniqueAddress('owner'), from: sender.from } });
    vi.spyOn(ses, 'send').mockRejectedValue(new TooManyRequestsException({ message: 'Maximum sending rate exceeded.', $metadata: {} }));

    const accepted = await submit(form.id, { email: 'ann@example.com' });

    expect(accepted.status).toBe(200);
    expect(await stored(sender.key, form.id)).toEqual({ counted: 1, listed: 1 });
    expect(await storedEmails(sender.domain)).toHaveLength(0);
  });

  it('a fault on the hourly confirmation claim keeps the submission and sends no confirmation (it never sends unclaimed)', async () => {
    const sender = await createSender();
    const audienceId = (await request('POST', '/api/audiences', { key: sender.key, body: { name: 'Sign-ups' } })).body.data.id as string;
    const form = await createForm(sender.key, { audienceId, settings: { doubleOptIn: true } });
    const email = uniqueAddress('claim');
    const fault = injectDynamoFault({ command: 'PutItemCommand', touching: 'FORMCONFIRM', fault: 'throttled' });

    const accepted = await submit(form.id, { email });

    expect(fault.matched()).toBe(1);
    expect(accepted.status).toBe(200);
    expect(await stored(sender.key, form.id)).toEqual({ counted: 1, listed: 1 });
    expect((await storedEmails(sender.domain)).filter((sent) => sent.destination.to.includes(email))).toHaveLength(0);
  });
});
