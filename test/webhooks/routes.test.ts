/**
 * The webhook endpoints over HTTP: what a client sees of create (the secret,
 * once), get, list, update and delete; a test event that a real receiver
 * gets signed, its limit per endpoint and account, and no retry to a disabled
 * endpoint; the deliveries list with its cursor; a manual retry; and the key
 * permission and error envelopes of each.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { TEST_EVENT_LIMITS } from '#shared/webhooks/service.ts';
import { deliverWebhook } from '#shared/webhooks/deliver.ts';
import { request } from '../support/api.ts';
import { createTestAccount } from '../support/accounts.ts';
import { makeRoom } from '../support/clock.ts';
import { receiversPerTest, takeMessages } from './support.ts';

const receiver = receiversPerTest();

/** Makes the attempts this account's queued messages ask for, as the worker would. */
async function deliverQueued(accountId: string): Promise<void> {
  for (const message of await takeMessages(accountId)) await deliverWebhook(message, Date.now());
}

const URL_A = 'http://127.0.0.1:9/a';

describe('webhook endpoints over HTTP', () => {
  it('creates (201, secret shown once), gets, lists, updates and deletes an endpoint', async () => {
    const { key } = await createTestAccount();
    const create = await request('POST', '/api/webhooks', { key, body: { url: URL_A, events: ['email.bounced'], description: 'CRM' } });
    expect(create.status).toBe(201);
    const { secret, ...shown } = create.body.data;
    expect(secret).toMatch(/^whsec_/);
    expect(shown).toMatchObject({
      id: expect.stringMatching(/^whk_/),
      url: URL_A,
      events: ['email.bounced'],
      description: 'CRM',
      enabled: true,
      disabledAt: null,
    });

    const get = await request('GET', `/api/webhooks/${shown.id}`, { key });
    expect(get).toMatchObject({ status: 200, body: { success: true, data: shown } });
    expect(get.body.data).not.toHaveProperty('secret');
    const list = await request('GET', '/api/webhooks', { key });
    expect(list).toMatchObject({ status: 200, body: { success: true, webhooks: [shown] } });

    const patch = await request('PATCH', `/api/webhooks/${shown.id}`, { key, body: { events: ['*'], enabled: false } });
    expect(patch).toMatchObject({ status: 200, body: { data: { id: shown.id, events: ['*'], enabled: false, url: URL_A } } });
    expect(patch.body.data).not.toHaveProperty('secret');

    expect(await request('DELETE', `/api/webhooks/${shown.id}`, { key })).toMatchObject({ status: 200, body: { success: true } });
    expect(await request('GET', `/api/webhooks/${shown.id}`, { key })).toMatchObject({ status: 404, body: { error: 'WEBHOOK_NOT_FOUND' } });
    expect(await request('GET', '/api/webhooks', { key })).toMatchObject({ status: 200, body: { webhooks: [] } });
  });

  it('refuses bad bodies with the field that is wrong', async () => {
    const { key } = await createTestAccount();
    const cases: [unknown, number, string, string][] = [
      [{ events: ['*'] }, 400, 'MISSING_REQUIRED_FIELD', 'url'],
      [{ url: URL_A }, 400, 'MISSING_REQUIRED_FIELD', 'events'],
      [{ url: 'not a url', events: ['*'] }, 422, 'VALIDATION_ERROR', 'url'],
      [{ url: URL_A, events: [] }, 422, 'VALIDATION_ERROR', 'events'],
      [{ url: URL_A, events: ['email.sent', 'nope'] }, 422, 'VALIDATION_ERROR', 'events[1]'],
      [{ url: URL_A, events: ['*', 'email.sent'] }, 422, 'VALIDATION_ERROR', 'events[0]'],
      [{ url: URL_A, events: ['*'], description: 'x'.repeat(501) }, 422, 'VALIDATION_ERROR', 'description'],
      [{ url: URL_A, events: ['*'], secret: 'whsec_mine' }, 422, 'VALIDATION_ERROR', 'secret'],
      [{ url: 'ftp://127.0.0.1/x', events: ['*'] }, 422, 'INVALID_WEBHOOK_URL', 'url'],
    ];
    for (const [body, status, error, field] of cases) {
      expect(await request('POST', '/api/webhooks', { key, body }), JSON.stringify(body)).toMatchObject({ status, body: { success: false, error, field } });
    }
    const { body } = await request('POST', '/api/webhooks', { key, body: { url: URL_A, events: ['*'] } });
    expect(await request('PATCH', `/api/webhooks/${body.data.id}`, { key, body: { enabled: 'yes' } })).toMatchObject({
      status: 422,
      body: { error: 'VALIDATION_ERROR', field: 'enabled' },
    });
  });

  it('answers 403 FORBIDDEN to a sending key on every webhook route', async () => {
    const { key } = await createTestAccount({ permission: 'sending' });
    for (const [method, path] of [
      ['POST', '/api/webhooks'],
      ['GET', '/api/webhooks'],
      ['GET', '/api/webhooks/whk_00000000000000000000'],
      ['GET', '/api/webhooks/whk_00000000000000000000/deliveries'],
      ['POST', '/api/webhooks/whk_00000000000000000000/test'],
    ] as const) {
      const body = method === 'POST' ? { body: { url: URL_A, events: ['*'] } } : {};
      expect(await request(method, path, { key, ...body })).toMatchObject({ status: 403, body: { error: 'FORBIDDEN' } });
    }
  });

  it('sends a signed webhook.test event that a real receiver verifies, and lists it among the deliveries', async () => {
    const { accountId, key } = await createTestAccount();
    const target = await receiver();
    const { body: created } = await request('POST', '/api/webhooks', { key, body: { url: target.url, events: ['email.bounced'] } });
    const { id, secret } = created.data;

    const test = await request('POST', `/api/webhooks/${id}/test`, { key });
    expect(test).toMatchObject({ status: 200, body: { success: true, data: { webhookId: id, eventType: 'webhook.test', status: 'pending', attempts: 0 } } });
    await deliverQueued(accountId);

    expect(target.requests).toHaveLength(1);
    const event = new Webhook(secret).verify(target.requests[0]!.body, target.requests[0]!.headers as Record<string, string>) as {
      type: string;
      data: unknown;
    };
    expect(event).toMatchObject({ type: 'webhook.test', data: { webhookId: id } });
    const deliveries = await request('GET', `/api/webhooks/${id}/deliveries`, { key });
    expect(deliveries).toMatchObject({
      status: 200,
      body: {
        success: true,
        deliveries: [{ id: test.body.data.id, eventType: 'webhook.test', status: 'succeeded', attempts: 1, lastStatusCode: 200 }],
        pagination: { limit: 20, nextCursor: null },
      },
    });
  });

  it('pages deliveries newest first by cursor, and refuses a cursor of another endpoint', async () => {
    const { accountId, key } = await createTestAccount();
    const { body: created } = await request('POST', '/api/webhooks', { key, body: { url: URL_A, events: ['*'] } });
    const { body: other } = await request('POST', '/api/webhooks', { key, body: { url: URL_A, events: ['*'] } });
    const sent: string[] = [];
    for (let index = 0; index < 3; index++) sent.unshift((await request('POST', `/api/webhooks/${created.data.id}/test`, { key })).body.data.id);
    await takeMessages(accountId);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { deliveries: { id: string }[]; pagination: { limit: number; nextCursor: string | null } } } = await request(
        'GET',
        `/api/webhooks/${created.data.id}/deliveries?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        { key },
      );
      expect(page.body.pagination.limit).toBe(2);
      seen.push(...page.body.deliveries.map((delivery) => delivery.id));
      cursor = page.body.pagination.nextCursor;
    } while (cursor);
    expect(seen).toEqual(sent);

    const first = await request('GET', `/api/webhooks/${created.data.id}/deliveries?limit=1`, { key });
    const elsewhere = await request('GET', `/api/webhooks/${other.data.id}/deliveries?cursor=${encodeURIComponent(first.body.pagination.nextCursor)}`, { key });
    expect(elsewhere).toMatchObject({ status: 422, body: { error: 'VALIDATION_ERROR', field: 'cursor' } });
    for (const query of ['limit=0', 'limit=101', 'limit=ten']) {
      expect(await request('GET', `/api/webhooks/${created.data.id}/deliveries?${query}`, { key })).toMatchObject({
        status: 422,
        body: { error: 'VALIDATION_ERROR', field: 'limit' },
      });
    }
  });

  it('retries a failed delivery now: pending again, attempted, succeeded', async () => {
    const { accountId, key } = await createTestAccount();
    let failing = true;
    const target = await receiver(() => (failing ? 500 : 204));
    const { body: created } = await request('POST', '/api/webhooks', { key, body: { url: target.url, events: ['*'] } });
    const id = created.data.id;
    const delivery = (await request('POST', `/api/webhooks/${id}/test`, { key })).body.data;
    await deliverQueued(accountId);
    const afterFailure = await request('GET', `/api/webhooks/${id}/deliveries`, { key });
    expect(afterFailure.body.deliveries[0]).toMatchObject({
      id: delivery.id,
      status: 'pending',
      attempts: 1,
      lastStatusCode: 500,
      nextAttemptAt: expect.any(String),
    });

    failing = false;
    const retry = await request('POST', `/api/webhooks/${id}/deliveries/${delivery.id}/retry`, { key });
    expect(retry).toMatchObject({ status: 200, body: { success: true, data: { id: delivery.id, status: 'pending', attempts: 1 } } });
    await deliverQueued(accountId);
    expect(target.requests).toHaveLength(2);
    // Same event, same webhook-id: the receiver deduplicates by it.
    expect(target.requests[1]!.headers['webhook-id']).toBe(target.requests[0]!.headers['webhook-id']);
    const after = await request('GET', `/api/webhooks/${id}/deliveries`, { key });
    expect(after.body.deliveries[0]).toMatchObject({ id: delivery.id, status: 'succeeded', attempts: 2, lastStatusCode: 204 });
  });

  it("answers unknown, malformed and other accounts' webhooks and deliveries with their 404 codes", async () => {
    const owner = await createTestAccount();
    const { body: created } = await request('POST', '/api/webhooks', { key: owner.key, body: { url: URL_A, events: ['*'] } });
    const delivery = (await request('POST', `/api/webhooks/${created.data.id}/test`, { key: owner.key })).body.data;
    await takeMessages(owner.accountId);
    const { key } = await createTestAccount();
    const { body: mine } = await request('POST', '/api/webhooks', { key, body: { url: URL_A, events: ['*'] } });
    for (const id of [created.data.id, 'whk_00000000000000000000', 'nope']) {
      expect(await request('GET', `/api/webhooks/${id}`, { key })).toMatchObject({
        status: 404,
        body: { error: 'WEBHOOK_NOT_FOUND', message: 'Webhook not found' },
      });
      expect(await request('PATCH', `/api/webhooks/${id}`, { key, body: { enabled: false } })).toMatchObject({
        status: 404,
        body: { error: 'WEBHOOK_NOT_FOUND' },
      });
      expect(await request('DELETE', `/api/webhooks/${id}`, { key })).toMatchObject({ status: 404, body: { error: 'WEBHOOK_NOT_FOUND' } });
      expect(await request('POST', `/api/webhooks/${id}/test`, { key })).toMatchObject({ status: 404, body: { error: 'WEBHOOK_NOT_FOUND' } });
      expect(await request('GET', `/api/webhooks/${id}/deliveries`, { key })).toMatchObject({ status: 404, body: { error: 'WEBHOOK_NOT_FOUND' } });
    }
    expect(await request('POST', `/api/webhooks/${created.data.id}/deliveries/${delivery.id}/retry`, { key })).toMatchObject({ status: 404 });
    expect(await request('POST', `/api/webhooks/${mine.data.id}/deliveries/${delivery.id}/retry`, { key })).toMatchObject({
      status: 404,
      body: { error: 'DELIVERY_NOT_FOUND', message: 'Delivery not found' },
    });
    expect((await request('GET', `/api/webhooks/${created.data.id}`, { key: owner.key })).body.data.enabled).toBe(true);
  });
});

describe('test events', () => {
  afterEach(() => vi.useRealTimers());

  /** A new endpoint of the key's account at `url`: its id. */
  const endpointAt = async (key: string, url: string) => (await request('POST', '/api/webhooks', { key, body: { url, events: ['*'] } })).body.data.id as string;

  it('answers 429 RATE_LIMIT_EXCEEDED with retryAfter past 10 test events to one endpoint in a minute; another endpoint has its own', async () => {
    const { accountId, key } = await createTestAccount();
    const [id, other] = [await endpointAt(key, URL_A), await endpointAt(key, URL_A)];
    const limit = TEST_EVENT_LIMITS.perEndpoint.perWindow;
    makeRoom(60, 10);

    const statuses: number[] = [];
    for (let index = 0; index < limit; index++) statuses.push((await request('POST', `/api/webhooks/${id}/test`, { key })).status);
    const refused = await request('POST', `/api/webhooks/${id}/test`, { key });
    const elsewhere = await request('POST', `/api/webhooks/${other}/test`, { key });

    expect(statuses).toEqual(Array(limit).fill(200));
    expect(refused).toMatchObject({
      status: 429,
      body: { success: false, error: 'RATE_LIMIT_EXCEEDED', message: expect.stringMatching(/^Too many test events to this endpoint; try again in \d+ s$/) },
    });
    expect(refused.body.retryAfter).toBeGreaterThanOrEqual(1);
    expect(refused.body.retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers.get('retry-after')).toBe(String(refused.body.retryAfter));
    expect(elsewhere.status).toBe(200);
    // The refused one queued nothing.
    expect(await takeMessages(accountId)).toHaveLength(limit + 1);
  });

  it("bounds an account's test events however many endpoints it makes for them", async () => {
    const { accountId, key } = await createTestAccount();
    const { perAccount, perEndpoint } = TEST_EVENT_LIMITS;
    makeRoom(60, 20);
    const statuses: number[] = [];
    for (let sent = 0; sent < perAccount.perWindow; sent += perEndpoint.perWindow) {
      // Each endpoint takes its own limit's worth, and is deleted to make room for the next.
      const id = await endpointAt(key, URL_A);
      const replies = await Promise.all(Array.from({ length: perEndpoint.perWindow }, () => request('POST', `/api/webhooks/${id}/test`, { key })));
      statuses.push(...replies.map((reply) => reply.status));
      expect((await request('DELETE', `/api/webhooks/${id}`, { key })).status).toBe(200);
    }
    const refused = await request('POST', `/api/webhooks/${await endpointAt(key, URL_A)}/test`, { key });

    expect(statuses).toEqual(Array(perAccount.perWindow).fill(200));
    expect(refused).toMatchObject({
      status: 429,
      body: { error: 'RATE_LIMIT_EXCEEDED', message: expect.stringMatching(/^Too many test events to this account/) },
    });
    await takeMessages(accountId);
  });

  it('makes one attempt of a test event to a disabled endpoint, and no retry when it fails', async () => {
    const { accountId, key } = await createTestAccount();
    const target = await receiver(() => 503);
    const id = await endpointAt(key, target.url);
    expect((await request('PATCH', `/api/webhooks/${id}`, { key, body: { enabled: false } })).status).toBe(200);

    const test = await request('POST', `/api/webhooks/${id}/test`, { key });
    const [message] = await takeMessages(accountId);
    expect(await deliverWebhook(message!, Date.now())).toEqual({ action: 'done', outcome: 'failed' });

    expect(target.requests).toHaveLength(1);
    const { body } = await request('GET', `/api/webhooks/${id}/deliveries`, { key });
    expect(body.deliveries).toEqual([
      expect.objectContaining({ id: test.body.data.id, status: 'failed', attempts: 1, lastStatusCode: 503, nextAttemptAt: null }),
    ]);
  });

  it('ends the retries of a test event once its endpoint is disabled: the next attempt is not made', async () => {
    const { accountId, key } = await createTestAccount();
    const target = await receiver(() => 503);
    const id = await endpointAt(key, target.url);
    const test = await request('POST', `/api/webhooks/${id}/test`, { key });
    const [first] = await takeMessages(accountId);
    const retry = await deliverWebhook(first!, Date.now());
    expect(retry).toMatchObject({ action: 'enqueue', message: { attempt: 2 } });

    expect((await request('PATCH', `/api/webhooks/${id}`, { key, body: { enabled: false } })).status).toBe(200);
    const due = retry.action === 'enqueue' ? retry.message : first!;
    expect(await deliverWebhook(due, due.notBefore)).toEqual({ action: 'done', outcome: 'abandoned' });

    expect(target.requests).toHaveLength(1);
    const { body } = await request('GET', `/api/webhooks/${id}/deliveries`, { key });
    expect(body.deliveries).toEqual([
      expect.objectContaining({ id: test.body.data.id, status: 'failed', attempts: 1, lastError: 'The webhook is disabled', nextAttemptAt: null }),
    ]);
  });
});
