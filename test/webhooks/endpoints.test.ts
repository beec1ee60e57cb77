/**
 * Webhook endpoints as the API will manage them: the secret shown once, the
 * fields each operation takes, every bad input a coded error naming its
 * field, and no endpoint of another account reachable.
 */
import { describe, expect, it } from 'vitest';

const { createWebhook, deleteWebhook, getWebhook, listWebhooks, MAX_WEBHOOKS_PER_ACCOUNT, sendTestEvent, updateWebhook } = await import(
  '#shared/webhooks/service.ts'
);
const { createTestAccount } = await import('../support/accounts.ts');
const { refusal } = await import('./support.ts');

const URL_A = 'http://127.0.0.1:9/a';

describe('webhook endpoints', () => {
  it('creates an enabled endpoint and shows its whsec_ secret only then', async () => {
    const { accountId } = await createTestAccount();
    const now = Date.now();
    const created = await createWebhook(accountId, { url: URL_A, events: ['email.bounced', 'email.bounced', 'contact.created'], description: 'CRM' }, now);
    expect(created).toEqual({
      id: expect.stringMatching(/^whk_[0-9A-Za-z]{20}$/),
      url: URL_A,
      events: ['email.bounced', 'contact.created'],
      description: 'CRM',
      enabled: true,
      disabledAt: null,
      secret: expect.stringMatching(/^whsec_/),
      createdAt: new Date(now).toISOString(),
      updatedAt: new Date(now).toISOString(),
    });
    const { secret: _secret, ...shown } = created;
    expect(await getWebhook(accountId, created.id)).toEqual(shown);
    expect(await listWebhooks(accountId)).toEqual([shown]);
    const second = await createWebhook(accountId, { url: URL_A, events: ['*'] }, now);
    expect(second.secret).not.toBe(created.secret);
    expect((await listWebhooks(accountId)).map((webhook) => webhook.id)).toEqual([second.id, created.id]);
  });

  it('updates url, events, description and enabled', async () => {
    const { accountId } = await createTestAccount();
    const { id } = await createWebhook(accountId, { url: URL_A, events: ['*'] }, Date.now());
    const later = Date.now() + 1000;
    const updated = await updateWebhook(
      accountId,
      id,
      { url: 'http://127.0.0.1:9/b', events: ['form.submitted'], description: 'forms', enabled: false },
      later,
    );
    expect(updated).toMatchObject({
      id,
      url: 'http://127.0.0.1:9/b',
      events: ['form.submitted'],
      description: 'forms',
      enabled: false,
      updatedAt: new Date(later).toISOString(),
    });
    expect(updated).not.toHaveProperty('secret');
    expect(await getWebhook(accountId, id)).toEqual(updated);
  });

  it('deletes an endpoint, and gives its place under the limit back', async () => {
    const { accountId } = await createTestAccount();
    const ids: string[] = [];
    for (let index = 0; index < MAX_WEBHOOKS_PER_ACCOUNT; index++) ids.push((await createWebhook(accountId, { url: URL_A, events: ['*'] }, Date.now())).id);
    expect(await refusal(createWebhook(accountId, { url: URL_A, events: ['*'] }, Date.now()))).toMatchObject({
      status: 409,
      body: { error: 'WEBHOOK_LIMIT_REACHED' },
    });
    await deleteWebhook(accountId, ids[0]!);
    expect(await refusal(getWebhook(accountId, ids[0]!))).toMatchObject({ status: 404, body: { error: 'WEBHOOK_NOT_FOUND' } });
    await expect(createWebhook(accountId, { url: URL_A, events: ['*'] }, Date.now())).resolves.toMatchObject({ enabled: true });
  });

  it("answers unknown, malformed and other accounts' ids alike: 404 WEBHOOK_NOT_FOUND", async () => {
    const { accountId } = await createTestAccount();
    const other = await createTestAccount();
    const { id } = await createWebhook(other.accountId, { url: URL_A, events: ['*'] }, Date.now());
    for (const webhookId of [id, 'whk_000000000000000000000', 'nope']) {
      for (const attempt of [
        () => getWebhook(accountId, webhookId),
        () => updateWebhook(accountId, webhookId, { enabled: false }, Date.now()),
        () => deleteWebhook(accountId, webhookId),
        () => sendTestEvent(accountId, webhookId, Date.now()),
      ]) {
        expect(await refusal(attempt())).toEqual({ status: 404, body: { success: false, error: 'WEBHOOK_NOT_FOUND', message: 'Webhook not found' } });
      }
    }
    expect(await getWebhook(other.accountId, id)).toMatchObject({ enabled: true });
  });

  it('refuses bad events and descriptions with VALIDATION_ERROR naming the field', async () => {
    const { accountId } = await createTestAccount();
    const cases: [Parameters<typeof createWebhook>[1], string][] = [
      [{ url: URL_A, events: [] }, 'events'],
      [{ url: URL_A, events: ['email.sent', 'email.exploded'] }, 'events[1]'],
      [{ url: URL_A, events: ['*', 'email.sent'] }, 'events[0]'],
      [{ url: URL_A, events: ['webhook.test'] }, 'events[0]'],
      [{ url: URL_A, events: ['*'], description: 'x'.repeat(501) }, 'description'],
    ];
    for (const [input, field] of cases) {
      expect(await refusal(createWebhook(accountId, input, Date.now()))).toMatchObject({
        status: 422,
        body: { success: false, error: 'VALIDATION_ERROR', field },
      });
    }
    const { id } = await createWebhook(accountId, { url: URL_A, events: ['*'] }, Date.now());
    expect(await refusal(updateWebhook(accountId, id, { events: ['nope'] }, Date.now()))).toMatchObject({ status: 422, body: { field: 'events[0]' } });
    expect(await refusal(updateWebhook(accountId, id, { url: 'ftp://127.0.0.1/' }, Date.now()))).toMatchObject({
      status: 422,
      body: { error: 'INVALID_WEBHOOK_URL', field: 'url' },
    });
  });

  it('starts the failure count afresh when an endpoint is enabled again', async () => {
    const { accountId } = await createTestAccount();
    const { id } = await createWebhook(accountId, { url: URL_A, events: ['*'] }, Date.now());
    await updateWebhook(accountId, id, { enabled: false }, Date.now());
    const enabled = await updateWebhook(accountId, id, { enabled: true }, Date.now());
    expect(enabled.enabled).toBe(true);
    expect(enabled.disabledAt).toBeNull();
  });
});
