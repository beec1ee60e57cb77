/**
 * A public submission has no key behind it: a form's notification and double
 * opt-in confirmation go out in the environment of the key that last created
 * or changed the form (docs/api.md, "Forms"). A test key's form records them
 * as test messages: nothing reaches SES and no quota is used.
 */
import { describe, expect, it } from 'vitest';
import { showAccount } from '#shared/accounts/service.ts';
import { request } from '../support/api.ts';
import { createAudience } from '../support/arrange.ts';
import { createSender, storedEmails, uniqueAddresses, type Sender } from '../sending/support.ts';
import { createForm, submit } from './support.ts';

/** The account's email records to `to`, as the message log lists them. */
async function recordsTo(sender: Sender, to: string) {
  const response = await request('GET', `/api/emails?to=${encodeURIComponent(to)}`, { key: sender.key });
  return response.body.emails.map(({ type, status, test }: Record<string, unknown>) => ({ type, status, test }));
}

describe('a form made or changed with a test key', () => {
  it('records its notification and its confirmation as test messages: nothing reaches SES, no quota is used', async () => {
    const sender = await createSender({ quota: 10 });
    const [owner, ann] = uniqueAddresses('owner', 'ann');
    const audienceId = await createAudience(sender.testKey);
    const form = await createForm(sender.testKey, { audienceId, settings: { notifyEmail: owner, doubleOptIn: true, from: sender.from } });

    const response = await submit(form.id, { email: ann });

    expect(response.status).toBe(200);
    expect(await storedEmails(sender.domain)).toEqual([]);
    expect(await showAccount(sender.accountId)).toMatchObject({ emailsSent: 0, emailsRemaining: 10 });
    expect(await recordsTo(sender, owner)).toEqual([{ type: 'transactional', status: 'sent', test: true }]);
    expect(await recordsTo(sender, ann)).toEqual([{ type: 'transactional', status: 'sent', test: true }]);
  });

  it('follows the key of the last change: a test key stops a live form sending, a live key starts it again', async () => {
    const sender = await createSender({ quota: 10 });
    const [owner, ann, bob] = uniqueAddresses('owner', 'ann', 'bob');
    const form = await createForm(sender.key, { settings: { notifyEmail: owner, from: sender.from } });

    await request('PATCH', `/api/forms/${form.id}`, { key: sender.testKey, body: { title: 'Renamed' } });
    await submit(form.id, { email: ann });
    const whileTest = await storedEmails(sender.domain);
    await request('PATCH', `/api/forms/${form.id}`, { key: sender.key, body: { published: true } });
    await submit(form.id, { email: bob });

    expect(whileTest).toEqual([]);
    expect((await storedEmails(sender.domain)).map((email) => [email.destination.to, email.replyTo])).toEqual([[[owner], [bob]]]);
    expect(await showAccount(sender.accountId)).toMatchObject({ emailsSent: 1 });
    expect(await recordsTo(sender, owner)).toEqual([
      { type: 'transactional', status: 'sent', test: false },
      { type: 'transactional', status: 'sent', test: true },
    ]);
  });
});
