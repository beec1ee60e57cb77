/**
 * Failures are where secrets leak into logs: an SDK error carries the request
 * it failed on (`$response`, `cause`), and an unexpected error is logged in
 * full. Under a fault in the middle of a send, no line may hold the API key,
 * the link-signing secret, the recipient, the subject or the body.
 */
import { describe, expect, it } from 'vitest';
import { setFaultHook } from '../support/dynamo-faults.ts';
import { signingSecret } from '#shared/platform/signing/secret.ts';
import { request } from '../support/api.ts';
import { captureConsole } from '../support/console.ts';
import { createSender, uniqueAddress } from '../sending/support.ts';
import { INTERNAL_ERROR } from './support.ts';

const lines = captureConsole();

/** A DynamoDB failure shaped like the SDK's: the failed request's payload rides along on the error. */
function failingWithPayload(command: string) {
  setFaultHook((name, input) =>
    name === command
      ? {
          error: Object.assign(new Error('One or more parameter values were invalid'), {
            name: 'ValidationException',
            $response: { body: JSON.stringify(input) },
            cause: { data: input },
          }),
        }
      : undefined,
  );
}

describe('logs under faults', () => {
  it('hold no key, signing secret, recipient, subject or body when a send fails after SES took it', async () => {
    const sender = await createSender();
    const to = uniqueAddress('private');
    const body = { from: sender.from, to, subject: 'Payroll for Ann Example', content: '<p>Salary statement 98765 <a href="{{unsubscribeUrl}}">stop</a></p>' };
    failingWithPayload('BatchWriteItemCommand');

    const failed = await request('POST', '/api/transactional/send', { key: sender.key, body });

    expect(failed).toMatchObject({ status: 500, body: INTERNAL_ERROR });
    const secret = await signingSecret();
    const text = lines.join('\n');
    expect(text).toContain('ValidationException');
    for (const leak of [
      sender.key,
      sender.key.slice('svc_live_'.length),
      secret.toString('utf8'),
      secret.toString('base64'),
      secret.toString('hex'),
      to,
      to.split('@')[0]!,
      body.subject,
      'Salary statement',
    ]) {
      expect({ leak, found: text.includes(leak) }).toEqual({ leak, found: false });
    }
  });

  it('hold no key, recipient or submitted data when a form submission fails', async () => {
    const sender = await createSender();
    const form = (
      await request('POST', '/api/forms', {
        key: sender.key,
        body: {
          title: 'Private',
          published: true,
          fields: [
            { id: 'email', type: 'email', label: 'Email', required: true },
            { id: 'note', type: 'textarea', label: 'Note' },
          ],
        },
      })
    ).body.data;
    const email = uniqueAddress('submitter');
    failingWithPayload('TransactWriteItemsCommand');

    const failed = await request('POST', `/api/forms/${form.id}/submit`, { body: { email, note: 'Medical history 4242' } });

    expect(failed.status).toBe(500);
    const text = lines.join('\n');
    for (const leak of [sender.key, email, email.split('@')[0]!, 'Medical history 4242']) {
      expect({ leak, found: text.includes(leak) }).toEqual({ leak, found: false });
    }
  });
});
