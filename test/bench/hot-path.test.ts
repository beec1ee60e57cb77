/**
 * The hot path at its floor (docs/data-model.md, "Round trips per request"),
 * counted by the benchmark's meter on the handlers' own DynamoDB client while
 * real requests go through the local server: the key check, both rate limits
 * and last-used are one call; a one-recipient send reads in one step beside
 * that and writes its records in one transaction, a live one the day's
 * statistics beside them.
 */
import { describe, expect, it } from 'vitest';
import { meterDynamoDb } from '../../bench/dynamo-meter.ts';
import { request, type RequestOptions } from '../support/api.ts';
import { createSender, storedEmails, uniqueAddress } from '../sending/support.ts';

const meter = meterDynamoDb();

async function metered(method: string, path: string, options: RequestOptions) {
  meter.reset();
  const response = await request(method, path, options);
  return { response, usage: meter.usage() };
}

/**
 * Act: a first send, which creates the month's usage item and warms the
 * caches, then a second, metered: the floor every later send pays.
 */
async function meteredSecondSend(path: string, send: () => RequestOptions) {
  await request('POST', path, send());
  return metered('POST', path, send());
}

describe('DynamoDB calls per request', () => {
  it('spends one call on the key check of a keyed GET: two in all', async () => {
    const sender = await createSender();
    const { id } = (await request('POST', '/api/audiences', { key: sender.key, body: { name: 'Floor' } })).body.data;

    const { response, usage } = await metered('GET', `/api/audiences/${id}/stats`, { key: sender.key });

    expect(response.status).toBe(200);
    expect(usage).toMatchObject({ roundTrips: 2, depth: 2, operations: ['UpdateItem', 'GetItem'] });
  });

  it("sends to one recipient with a live key in 6 calls, 4 steps deep: the day's statistics beside the records", async () => {
    const sender = await createSender();
    const send = () => ({ key: sender.key, body: { from: sender.from, recipients: [uniqueAddress()], subject: 'Hi', content: '<p>Hi</p>' } });
    // The month's first charge creates its usage item.

    const { response, usage } = await meteredSecondSend('/api/email/send', send);

    expect(response.status).toBe(200);
    expect(usage).toMatchObject({ roundTrips: 6, depth: 4 });
    expect(usage.operations.slice(0, 4)).toEqual(['UpdateItem', 'Query', 'BatchGetItem', 'UpdateItem']);
    // The records and the statistics start together, in either order.
    expect(usage.operations.slice(4).sort()).toEqual(['BatchWriteItem', 'UpdateItem']);
    expect(await storedEmails(sender.domain)).toHaveLength(2);
  });

  it('reads a template in the same batch as the sender and the suppression list: no call more', async () => {
    const sender = await createSender();
    const template = { name: 'T', subject: 'Hello {{name}}', components: [{ type: 'text', content: 'Hi {{name}}' }] };
    const templateId = (await request('POST', '/api/templates', { key: sender.key, body: template })).body.data.id as string;
    const send = () => ({ key: sender.key, body: { from: sender.from, recipients: [uniqueAddress()], templateId, variables: { name: 'Ann' } } });

    const { response, usage } = await meteredSecondSend('/api/email/send', send);

    expect(response.status).toBe(200);
    expect(usage).toMatchObject({ roundTrips: 6, depth: 4 });
    expect((await storedEmails(sender.domain)).at(-1)?.subject).toBe('Hello Ann');
  });

  it('answers a test-key send in 4 calls, the usage read riding in the batch', async () => {
    const sender = await createSender();
    const send = () => ({ key: sender.testKey, body: { from: sender.from, to: uniqueAddress(), subject: 'Receipt', content: '<p>Thanks</p>' } });

    const { response, usage } = await meteredSecondSend('/api/transactional/send', send);

    expect(response.status).toBe(200);
    expect(usage).toMatchObject({ roundTrips: 4, depth: 3, operations: ['UpdateItem', 'Query', 'BatchGetItem', 'BatchWriteItem'] });
  });

  it('counts the OTP window beside the quota charge: 7 calls, 4 steps deep with a live key', async () => {
    const sender = await createSender();
    const send = () => ({ key: sender.key, body: { from: sender.from, to: uniqueAddress(), code: '123456' } });

    const { response, usage } = await meteredSecondSend('/api/otp/send', send);

    expect(response.status).toBe(200);
    expect(usage).toMatchObject({ roundTrips: 7, depth: 4 });
  });

  it("claims an idempotency key beside the reads and completes it in the records' write: one call and no step more than without a key", async () => {
    const sender = await createSender();
    const send = () => ({ key: sender.testKey, body: { from: sender.from, to: uniqueAddress(), code: '123456', idempotencyKey: uniqueAddress() } });
    await request('POST', '/api/otp/send', send());
    const body = send();

    const { response, usage } = await metered('POST', '/api/otp/send', body);
    const replay = await request('POST', '/api/otp/send', body);

    expect(response.status).toBe(200);
    expect(usage).toMatchObject({ roundTrips: 6, depth: 4 });
    expect(usage.operations.filter((operation) => operation === 'UpdateItem')).toHaveLength(2);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(response.body);
  });

  it('answers a transactional send with an idempotency key in 5 calls, 3 steps deep', async () => {
    const sender = await createSender();
    const send = () => ({
      key: sender.testKey,
      body: { from: sender.from, to: uniqueAddress(), subject: 'Receipt', content: '<p>Thanks</p>', idempotencyKey: uniqueAddress() },
    });

    const { response, usage } = await meteredSecondSend('/api/transactional/send', send);

    expect(response.status).toBe(200);
    expect(usage).toMatchObject({ roundTrips: 5, depth: 3 });
  });

  it('sends a batch of 100 one-recipient emails with a test key at its floor: 111 calls, 3 steps deep', async () => {
    const sender = await createSender();
    const emails = () => Array.from({ length: 100 }, () => ({ from: sender.from, recipients: [uniqueAddress()], subject: 'News', content: '<p>Hello</p>' }));

    const { response, usage } = await meteredSecondSend('/api/email/batch', () => ({ key: sender.testKey, body: { emails: emails() } }));

    expect(response.status).toBe(200);
    expect(response.body.results.every((result: { success: boolean }) => result.success)).toBe(true);
    // The key; the 100 addresses' contacts beside two BatchGetItem calls; 200 records and events in 8 writes of 25.
    expect(usage).toMatchObject({ roundTrips: 111, depth: 3 });
    expect(usage.operations.filter((operation) => operation === 'Query')).toHaveLength(100);
    expect(usage.operations.filter((operation) => operation === 'BatchGetItem')).toHaveLength(2);
    expect(usage.operations.filter((operation) => operation === 'BatchWriteItem')).toHaveLength(8);
  }, 30_000);

  it('charges a live batch once: one call and one step more than a test key', async () => {
    const sender = await createSender({ quota: 1000 });
    const emails = () => Array.from({ length: 100 }, () => ({ from: sender.from, recipients: [uniqueAddress()], subject: 'News', content: '<p>Hello</p>' }));

    const { response, usage } = await meteredSecondSend('/api/email/batch', () => ({ key: sender.key, body: { emails: emails() } }));

    expect(response.status).toBe(200);
    expect(response.body.emailsRemaining).toBe(800);
    expect(usage).toMatchObject({ roundTrips: 113, depth: 4 });
  }, 30_000);

  it("counts a form submission's rate windows beside the form's read: one step fewer than calls", async () => {
    const sender = await createSender();
    const form = {
      title: 'Floor',
      slug: `floor-${uniqueAddress()
        .split('@')[0]!
        .replace(/[^a-z0-9]/g, '')}`.slice(0, 40),
      published: true,
      fields: [{ id: 'email', type: 'email', label: 'Email', required: true }],
    };
    const { id } = (await request('POST', '/api/forms', { key: sender.key, body: form })).body.data;
    await request('POST', `/api/forms/${id}/submit`, { body: { email: uniqueAddress() } });

    const { response, usage } = await metered('POST', `/api/forms/${id}/submit`, { body: { email: uniqueAddress() } });

    expect(response.status).toBe(200);
    // The form window is per second: the first submission of a second opens it with one call more. Either way the form's
    // read overlaps the windows, so at least one call shares a step, where one after another every call was a step.
    expect(usage.roundTrips).toBeLessThanOrEqual(6);
    expect(usage.depth).toBeLessThan(usage.roundTrips);
  });
});
