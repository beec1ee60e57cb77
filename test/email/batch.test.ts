import { afterEach, describe, expect, it, vi } from 'vitest';
import { request } from '../support/api.ts';
import { apiClient } from '../support/client.ts';
import { setFaultHook } from '../support/dynamo-faults.ts';
import { MessageRejected } from '@aws-sdk/client-sesv2';
import { verifySubscriptionToken } from '#shared/sending/subscription-links.ts';
import { createSender, sesFailsFor, storedEmails, suppressedFailure, throttleSesFor, uniqueAddress, type Sender } from '../sending/support.ts';

afterEach(() => {
  setFaultHook(undefined);
  vi.restoreAllMocks();
});

const batch = (key: string, body: unknown) => request('POST', '/api/email/batch', { key, body });

/** A valid batch item to a fresh address; `subject` tells the items apart. */
function item(sender: Sender, subject: string, fields: Record<string, unknown> = {}) {
  return { from: sender.from, recipients: [uniqueAddress()], subject, content: `<p>${subject}</p>`, ...fields };
}

function items(sender: Sender, count: number) {
  return Array.from({ length: count }, (_, index) => item(sender, `Item ${index}.`));
}

const recipientsOf = (emails: { destination: { to: string[] } }[]) => emails.flatMap((email) => email.destination.to).sort();

/** Act: the batch once under a DynamoDB `fault`, the messages SES stored by then, and the same request again with the table healthy. */
async function failedThenRetried(sender: Sender, body: unknown, fault: Parameters<typeof setFaultHook>[0]) {
  setFaultHook(fault);
  const failed = await batch(sender.key, body);
  const sentBeforeRetry = (await storedEmails(sender.domain)).length;
  setFaultHook(undefined);
  return { failed, sentBeforeRetry, retried: await batch(sender.key, body) };
}

describe('POST /api/email/batch', () => {
  it('answers 100 emails one by one, in order: valid ones sent and recorded, each invalid one with its error and a field inside the batch', async () => {
    const sender = await createSender({ quota: 1000 });
    const emails = items(sender, 100).map((email, index) => {
      if (index % 12 === 3) return { ...email, recipients: ['not-an-address'] };
      if (index % 12 === 7) return { ...email, subject: undefined };
      if (index % 12 === 11) return { ...email, from: `news@unverified-${sender.domain}` };
      return email;
    });

    const response = await batch(sender.key, { emails });

    expect(response.status).toBe(200);
    expect(response.body.results).toHaveLength(100);
    for (const [index, result] of (response.body.results as Record<string, unknown>[]).entries()) {
      const expected =
        index % 12 === 3
          ? { success: false, error: 'INVALID_EMAIL', field: `emails[${index}].recipients[0]` }
          : index % 12 === 7
            ? { success: false, error: 'MISSING_REQUIRED_FIELD', field: `emails[${index}].subject` }
            : index % 12 === 11
              ? { success: false, error: 'SENDER_NOT_VERIFIED', field: `emails[${index}].from` }
              : {
                  success: true,
                  recipientCount: 1,
                  failedEmails: [],
                  successfulEmails: [{ recipient: emails[index]!.recipients[0], trackingId: expect.any(String) }],
                };
      expect(result, `emails[${index}]`).toMatchObject({ index, ...expected });
    }
    const valid = emails.filter((_, index) => index % 4 !== 3);
    expect(recipientsOf(await storedEmails(sender.domain))).toEqual(valid.map((email) => email.recipients[0]).sort());
    expect(response.body.emailsRemaining).toBe(1000 - valid.length);

    const first = response.body.results[0].successfulEmails[0];
    const record = await request('GET', `/api/emails/${first.trackingId}`, { key: sender.key });
    expect(record.status).toBe(200);
    expect(record.body.data).toMatchObject({ id: expect.stringMatching(/^eml_/), to: emails[0]!.recipients[0], subject: 'Item 0.', status: 'sent' });
  }, 60_000);

  it('answers 422 ALL_EMAILS_FAILED with every result when no email is accepted', async () => {
    const sender = await createSender({ quota: 50 });

    const response = await batch(sender.key, { emails: [item(sender, 'A', { from: 'news@elsewhere.example.net' }), 'not an object'] });

    expect(response.status).toBe(422);
    expect(response.body).toEqual({
      success: false,
      error: 'ALL_EMAILS_FAILED',
      message: 'None of the 2 emails of the batch was sent',
      results: [
        { index: 0, success: false, error: 'SENDER_NOT_VERIFIED', message: expect.any(String), field: 'emails[0].from' },
        { index: 1, success: false, error: 'VALIDATION_ERROR', message: expect.any(String), field: 'emails[1]' },
      ],
      emailsRemaining: 50,
    });
    expect(await storedEmails(sender.domain)).toEqual([]);
  });

  it('refuses the whole request when the body is not an object or emails is missing, not an array, empty or over 100 items, sending nothing', async () => {
    const sender = await createSender();

    const answers = await Promise.all([
      batch(sender.key, [item(sender, 'A')]),
      batch(sender.key, {}),
      batch(sender.key, { emails: item(sender, 'A') }),
      batch(sender.key, { emails: [] }),
      batch(sender.key, { emails: items(sender, 101) }),
    ]);

    expect(answers.map(({ status, body }) => [status, body.error, body.field])).toEqual([
      [400, 'INVALID_JSON', undefined],
      [400, 'MISSING_REQUIRED_FIELD', 'emails'],
      [422, 'VALIDATION_ERROR', 'emails'],
      [422, 'VALIDATION_ERROR', 'emails'],
      [422, 'VALIDATION_ERROR', 'emails'],
    ]);
    expect(answers[4]!.body.message).toBe('emails: must hold 1 to 100 emails');
    expect(await storedEmails(sender.domain)).toEqual([]);
  });

  it('fails an item that carries its own idempotency key, and sends the others', async () => {
    const sender = await createSender();

    const response = await batch(sender.key, { emails: [item(sender, 'A', { idempotencyKey: 'mine' }), item(sender, 'B')] });

    expect(response.status).toBe(200);
    expect(response.body.results).toMatchObject([
      { index: 0, success: false, error: 'VALIDATION_ERROR', field: 'emails[0].idempotencyKey' },
      { index: 1, success: true },
    ]);
    expect(await storedEmails(sender.domain)).toHaveLength(1);
  });

  it('replays the stored reply for the same key and body without sending again, and refuses the key with another body', async () => {
    const sender = await createSender();
    const body = { emails: items(sender, 3), idempotencyKey: 'batch-1' };

    const first = await batch(sender.key, body);
    const again = await batch(sender.key, body);
    const changed = await batch(sender.key, { ...body, emails: body.emails.slice(1) });

    expect(first.status).toBe(200);
    expect([again.status, again.headers.get('idempotent-replayed')]).toEqual([200, 'true']);
    expect(again.body).toEqual(first.body);
    expect([changed.status, changed.body.error, changed.body.field]).toEqual([422, 'IDEMPOTENCY_KEY_REUSED', 'idempotencyKey']);
    expect(await storedEmails(sender.domain)).toHaveLength(3);
  });

  it('sends nobody twice when its messages left but their records failed: the retry with its key replays the answer', async () => {
    const sender = await createSender();
    const body = { emails: items(sender, 30), idempotencyKey: 'crashing-batch' };
    let crashed = false;

    // Item 3's records are stored, then the function dies before it answers.
    const { failed, sentBeforeRetry, retried } = await failedThenRetried(sender, body, (command, input) => {
      if (crashed || command !== 'BatchWriteItemCommand' || !JSON.stringify(input).includes('"Item 3."')) return undefined;
      crashed = true;
      return { error: new Error('the function crashed'), after: true };
    });

    expect([failed.status, failed.body.error]).toEqual([500, 'INTERNAL_ERROR']);
    // The items go out together, then their records are written: every message had left.
    expect(sentBeforeRetry).toBe(30);
    expect([retried.status, retried.headers.get('idempotent-replayed')]).toEqual([200, 'true']);
    expect(retried.body.results.map((result: { success: boolean }) => result.success)).toEqual(Array(30).fill(true));
    expect(recipientsOf(await storedEmails(sender.domain))).toEqual(body.emails.map((email) => email.recipients[0]).sort());
  });

  it('gives its key back when it fails before any message left: the retry sends every email once', async () => {
    const sender = await createSender({ quota: 100 });
    const body = { emails: items(sender, 5), idempotencyKey: 'charge-fails' };

    // The batch's one quota charge fails.
    const { failed, sentBeforeRetry, retried } = await failedThenRetried(sender, body, (command, input) =>
      command === 'UpdateItemCommand' && JSON.stringify(input).includes(':count') ? { error: new Error('DynamoDB is down') } : undefined,
    );

    expect([failed.status, failed.body.error]).toEqual([500, 'INTERNAL_ERROR']);
    expect(sentBeforeRetry).toBe(0);
    expect([retried.status, retried.headers.get('idempotent-replayed')]).toEqual([200, null]);
    expect(retried.body.emailsRemaining).toBe(95);
    expect(recipientsOf(await storedEmails(sender.domain))).toEqual(body.emails.map((email) => email.recipients[0]).sort());
  });

  it('charges the quota once for the whole batch and gives back in one call what SES did not take', async () => {
    const sender = await createSender({ quota: 100 });
    const [ok, refused] = [uniqueAddress('ok'), uniqueAddress('refused')];
    const charges: number[] = [];
    setFaultHook((command, input) => {
      const values = (input as { ExpressionAttributeValues?: Record<string, unknown> }).ExpressionAttributeValues;
      if (command === 'UpdateItemCommand' && values && ':count' in values) charges.push(Number(values[':count']));
      if (command === 'UpdateItemCommand' && values && ':change' in values) charges.push(Number(values[':change']));
      return undefined;
    });
    sesFailsFor(refused, () => new MessageRejected({ message: 'Email address is not verified.', $metadata: {} }));

    const response = await batch(sender.key, {
      emails: [item(sender, 'A', { recipients: [ok] }), item(sender, 'B', { recipients: [refused] }), item(sender, 'C')],
    });

    expect(response.status).toBe(200);
    expect(response.body.results.map((result: { success: boolean }) => result.success)).toEqual([true, false, true]);
    expect(charges).toEqual([3, -1]);
    expect(response.body.emailsRemaining).toBe(98);
  });

  it('fails the emails that find the quota used up with QUOTA_EXCEEDED, keeping those sent', async () => {
    const sender = await createSender({ quota: 5 });

    const response = await batch(sender.key, { emails: items(sender, 8) });

    expect(response.status).toBe(200);
    const results = response.body.results as { success: boolean; error?: string }[];
    expect(results.filter((result) => result.success)).toHaveLength(5);
    expect(results.filter((result) => !result.success).map((result) => result.error)).toEqual(Array(3).fill('QUOTA_EXCEEDED'));
    expect(response.body.emailsRemaining).toBe(0);
    expect(await storedEmails(sender.domain)).toHaveLength(5);
  });

  it('charges the items in index order when not all fit: one that does not fit fails, a later smaller one is still sent', async () => {
    const sender = await createSender({ quota: 3 });
    const wide = [uniqueAddress('a'), uniqueAddress('b'), uniqueAddress('c')];

    const response = await batch(sender.key, { emails: [item(sender, 'A'), item(sender, 'B', { recipients: wide }), item(sender, 'C')] });

    expect(response.status).toBe(200);
    expect(response.body.results).toMatchObject([
      { index: 0, success: true },
      { index: 1, success: false, error: 'QUOTA_EXCEEDED', message: 'This send needs 3 emails but 2 of the monthly quota of 3 remain' },
      { index: 2, success: true },
    ]);
    expect(response.body.emailsRemaining).toBe(1);
    expect((await storedEmails(sender.domain)).map((email) => email.subject).sort()).toEqual(['A', 'C']);
  });

  it('with a test key answers as live but hands nothing to SES and charges nothing', async () => {
    const sender = await createSender({ quota: 10 });

    const response = await batch(sender.testKey, { emails: items(sender, 3) });

    expect(response.status).toBe(200);
    expect(response.body.results.map((result: { success: boolean }) => result.success)).toEqual([true, true, true]);
    expect(response.body.emailsRemaining).toBe(10);
    expect(await storedEmails(sender.domain)).toEqual([]);
  });

  it('fails alone the email whose only recipient is suppressed, with its send result', async () => {
    const sender = await createSender();
    const unsubscribed = uniqueAddress('unsub');
    const audience = (await request('POST', '/api/audiences', { key: sender.key, body: { name: 'Main' } })).body.data;
    await request('POST', '/api/contacts', { key: sender.key, body: { email: unsubscribed, audienceId: audience.id, status: 'unsubscribed' } });

    const response = await batch(sender.key, { emails: [item(sender, 'A'), item(sender, 'B', { recipients: [unsubscribed] })] });

    expect(response.status).toBe(200);
    expect(response.body.results[1]).toEqual({
      index: 1,
      success: false,
      error: 'ALL_RECIPIENTS_FAILED',
      message: 'The email was not sent to any of the 1 recipient',
      successfulEmails: [],
      failedEmails: [suppressedFailure(unsubscribed)],
      recipientCount: 1,
    });
    expect(recipientsOf(await storedEmails(sender.domain))).toEqual([response.body.results[0].successfulEmails[0].recipient]);
  });

  it("gives an item whose content shows a signed link its recipient's own link and List-Unsubscribe", async () => {
    const sender = await createSender();
    const [plain, linked] = [item(sender, 'Plain.'), item(sender, 'Linked.', { content: '<p>News</p><a href="{{unsubscribeUrl}}">Leave</a>' })];

    expect((await batch(sender.key, { emails: [plain, linked] })).status).toBe(200);

    const stored = await storedEmails(sender.domain);
    const withLink = stored.find((email) => email.destination.to.includes(linked.recipients[0]!))!;
    const token = /href="[^"]*\/unsubscribe\/([^"]+)"/.exec(withLink.body.html!)?.[1];
    expect((await verifySubscriptionToken(token ?? ''))?.email).toBe(linked.recipients[0]);
    expect(withLink.headers).toContainEqual({ name: 'List-Unsubscribe', value: expect.stringContaining(`/unsubscribe/${token}`) });
    expect(stored.find((email) => email.destination.to.includes(plain.recipients[0]!))!.headers ?? []).toEqual([]);
  });

  it("does not reach another account's template from an item", async () => {
    const [owner, caller] = await Promise.all([createSender(), createSender()]);
    const template = await request('POST', '/api/templates', {
      key: owner.key,
      body: { name: 'T', subject: 'S', components: [{ type: 'text', content: 'x' }] },
    });

    const response = await batch(caller.key, { emails: [{ from: caller.from, recipients: [uniqueAddress()], templateId: template.body.data.id }] });

    expect(response.status).toBe(422);
    expect(response.body.results).toMatchObject([{ index: 0, success: false, error: 'TEMPLATE_NOT_FOUND', field: 'emails[0].templateId' }]);
  });

  it('sends attachments per item, uploaded ones by id as inline ones', async () => {
    const sender = await createSender();
    const bytes = Buffer.from('uploaded file');
    const upload = await request('POST', '/api/attachments', { key: sender.key, body: { filename: 'up.txt', contentType: 'text/plain', size: bytes.length } });
    expect((await fetch(upload.body.data.uploadUrl, { method: 'PUT', headers: upload.body.data.headers, body: bytes })).status).toBe(200);

    const response = await batch(sender.key, {
      emails: [
        item(sender, 'A', { attachments: [{ id: upload.body.data.id }] }),
        item(sender, 'B', { attachments: [{ filename: 'inline.txt', content: Buffer.from('inline file').toString('base64') }] }),
      ],
    });

    expect(response.status).toBe(200);
    const stored = await storedEmails(sender.domain);
    const filesOf = (subject: string) => stored.find((email) => email.subject === subject)!.attachments.map((file) => file.filename);
    expect([filesOf('A'), filesOf('B')]).toEqual([['up.txt'], ['inline.txt']]);
  });

  it("answers queued: true for an item's message SES throttled, put on the retry queue", async () => {
    const sender = await createSender();
    const [ok, slow] = [uniqueAddress('ok'), uniqueAddress('slow')];
    throttleSesFor(slow);

    const response = await batch(sender.key, { emails: [item(sender, 'A', { recipients: [ok] }), item(sender, 'B', { recipients: [slow] })] });

    expect(response.status).toBe(200);
    expect(response.body.results).toMatchObject([
      { index: 0, success: true, successfulEmails: [{ recipient: ok }] },
      { index: 1, success: true, successfulEmails: [{ recipient: slow, queued: true }] },
    ]);
    const record = await request('GET', `/api/emails/${response.body.results[1].successfulEmails[0].trackingId}`, { key: sender.key });
    expect(record.body.data).toMatchObject({ to: slow, status: 'queued' });
  });

  it('is typed in the generated client: items as send bodies, results by index', async () => {
    const sender = await createSender();
    const api = await apiClient(sender.key);
    const to = uniqueAddress();

    const { data, error } = await api.POST('/api/email/batch', {
      body: { emails: [{ from: sender.from, recipients: [to], subject: 'Typed', content: '<p>Typed</p>' }], idempotencyKey: 'typed-1' },
    });

    expect(error).toBeUndefined();
    const [result] = data!.results;
    expect(result!.success && result!.successfulEmails.map((sent) => sent.recipient)).toEqual([to]);
  });

  it('counts once against the rate limit, however many emails it holds', async () => {
    const sender = await createSender();

    const response = await batch(sender.key, { emails: items(sender, 5) });

    // The account's first request of its window: one counted leaves one less than the limit.
    expect(response.status).toBe(200);
    expect(Number(response.headers.get('x-ratelimit-limit')) - Number(response.headers.get('x-ratelimit-remaining'))).toBe(1);
  });
});
