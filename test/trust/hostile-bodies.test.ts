/**
 * Hostile bodies (docs/api.md, "Errors"): an array, string or number
 * where an object is expected, reserved keys in free maps, bytes that are not
 * UTF-8, a compressed body, deep nesting, and updates that would pass a stored
 * object's limits once merged. Each gets its 4xx with the right code and field,
 * and a refused request stores nothing.
 */
import { gzipSync, brotliCompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestAccount } from '../support/accounts.ts';
import { request, type ApiResponse } from '../support/api.ts';
import { createSender, type Sender } from '../sending/support.ts';
import { createForm, submit } from '../forms/support.ts';
import { isBookkeeping, recordWrites, type WriteRecorder } from '../fuzz/stored-writes.ts';
import { MAX_VARIABLE_DEPTH } from '#shared/platform/schema/common.ts';
import { accountWithAudience } from '../support/arrange.ts';

let writes: WriteRecorder;

beforeAll(() => {
  writes = recordWrites();
});

afterAll(() => writes.stop());

/** What the request stored besides every keyed request's bookkeeping (rate windows, key use). */
function stored(): string[] {
  return writes
    .take()
    .filter((key) => !isBookkeeping(key))
    .map((key) => `${key.command} ${key.pk} ${key.sk}`);
}

/** Answers `response` with the error code and field, and stored nothing since the last `writes.take()`. */
function expectRefused(response: ApiResponse, status: number, error: string, field?: string): void {
  expect(response.body, JSON.stringify(response.body)).toMatchObject({ success: false, error, ...(field === undefined ? {} : { field }) });
  expect(response.status).toBe(status);
  expect(stored()).toEqual([]);
}

/** JSON text parsed, so keys such as `__proto__` are own keys (an object literal would set the prototype instead). */
const json = (text: string): Record<string, unknown> => JSON.parse(text) as Record<string, unknown>;

/** A transactional send to someone@example.org carrying `variables`, and any `extra` fields. */
function sendWithVariables(sender: Sender, variables: unknown, extra: Record<string, unknown> = {}): Promise<ApiResponse> {
  return request('POST', '/api/transactional/send', {
    key: sender.key,
    body: { from: sender.from, to: 'someone@example.org', subject: 'S', content: 'C', variables, ...extra },
  });
}

const withAudience = () => accountWithAudience('Hostile');

function nested(depth: number): unknown {
  let value: unknown = 'deep';
  for (let level = 0; level < depth; level++) value = { a: value };
  return value;
}

describe('an array, a string or a number where an object is expected', () => {
  it('is 422 VALIDATION_ERROR naming the field on contacts, forms and templates, and nothing is stored', async () => {
    const { key, audienceId } = await withAudience();
    const { body: contact } = await request('POST', '/api/contacts', { key, body: { email: 'kept@example.com', audienceId } });
    const form = await createForm(key);
    const { body: template } = await request('POST', '/api/templates', { key, body: { name: 'T', subject: 'Hi' } });
    writes.take();

    for (const customFields of [['a'], [], 'text', 7]) {
      expectRefused(
        await request('POST', '/api/contacts', { key, body: { email: 'new@example.com', audienceId, customFields } }),
        422,
        'VALIDATION_ERROR',
        'customFields',
      );
      expectRefused(await request('PATCH', `/api/contacts/${contact.data.id}`, { key, body: { customFields } }), 422, 'VALIDATION_ERROR', 'customFields');
    }
    for (const settings of [[], [{ successMessage: 'x' }], 'text', 1]) {
      expectRefused(
        await request('POST', '/api/forms', { key, body: { title: 'F', fields: [{ id: 'email', type: 'email', label: 'Email' }], settings } }),
        422,
        'VALIDATION_ERROR',
        'settings',
      );
      expectRefused(await request('PATCH', `/api/forms/${form.id}`, { key, body: { settings } }), 422, 'VALIDATION_ERROR', 'settings');
    }
    expectRefused(await request('PATCH', `/api/forms/${form.id}`, { key, body: { appearance: [] } }), 422, 'VALIDATION_ERROR', 'appearance');
    expectRefused(await request('POST', '/api/templates', { key, body: { name: 'T', subject: 'Hi', styles: [] } }), 422, 'VALIDATION_ERROR', 'styles');
    expectRefused(await request('PATCH', `/api/templates/${template.data.id}`, { key, body: { styles: [1] } }), 422, 'VALIDATION_ERROR', 'styles');
    expectRefused(
      await request('POST', `/api/templates/${template.data.id}/render`, { key, body: { variables: ['x'] } }),
      422,
      'VALIDATION_ERROR',
      'variables',
    );

    const after = await request('GET', `/api/contacts/${contact.data.id}`, { key });
    expect(after.body.data.customFields).toEqual({});
  });

  it('is 422 naming the field on the send endpoints, and nothing is sent', async () => {
    const sender = await createSender();
    writes.take();
    const to = 'someone@example.org';

    for (const variables of [[], ['a'], 'text', 3]) {
      expectRefused(await sendWithVariables(sender, variables), 422, 'VALIDATION_ERROR', 'variables');
      expectRefused(
        await request('POST', '/api/email/send', { key: sender.key, body: { from: sender.from, recipients: [to], subject: 'S', content: 'C', variables } }),
        422,
        'VALIDATION_ERROR',
        'variables',
      );
    }
    expectRefused(
      await request('POST', '/api/email/send', {
        key: sender.key,
        body: { from: sender.from, recipients: [to], subject: 'S', content: 'C', attachments: [[]] },
      }),
      422,
      'VALIDATION_ERROR',
      'attachments[0]',
    );
  });

  it('an entry of a bulk import with an array for customFields fails alone, naming contacts[i].customFields', async () => {
    const { key, audienceId } = await withAudience();

    const response = await request('POST', '/api/contacts/bulk', {
      key,
      body: { audienceId, contacts: [{ email: 'a@example.com', customFields: ['x'] }, { email: 'b@example.com' }] },
    });

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ imported: 1, failed: 1, errors: [{ index: 0, error: 'VALIDATION_ERROR', field: 'contacts[0].customFields' }] });
  });
});

describe('reserved keys in free maps', () => {
  it.each(['__proto__', 'constructor', 'prototype'])('%s in customFields is 422 naming the key, on create, update and import', async (reserved) => {
    const { key, audienceId } = await withAudience();
    const { body: contact } = await request('POST', '/api/contacts', { key, body: { email: 'kept@example.com', audienceId, customFields: { plan: 'pro' } } });
    writes.take();
    const fields = json(`{"plan": "free", ${JSON.stringify(reserved)}: {"polluted": true}}`);

    expectRefused(
      await request('POST', '/api/contacts', { key, body: { email: 'new@example.com', audienceId, customFields: fields } }),
      422,
      'VALIDATION_ERROR',
      `customFields.${reserved}`,
    );
    expectRefused(
      await request('PATCH', `/api/contacts/${contact.data.id}`, { key, body: { customFields: fields } }),
      422,
      'VALIDATION_ERROR',
      `customFields.${reserved}`,
    );
    const imported = await request('POST', '/api/contacts/bulk', {
      key,
      body: { audienceId, contacts: [{ email: 'kept@example.com', customFields: fields }] },
    });

    expect(imported.body).toMatchObject({
      imported: 0,
      failed: 1,
      errors: [{ index: 0, error: 'VALIDATION_ERROR', field: `contacts[0].customFields.${reserved}` }],
    });
    expect((await request('GET', `/api/contacts/${contact.data.id}`, { key })).body.data.customFields).toEqual({ plan: 'pro' });
  });

  it('in template variables, at any depth, is 422 naming the key', async () => {
    const sender = await createSender();
    const { body: template } = await request('POST', '/api/templates', { key: sender.key, body: { name: 'T', subject: 'Hi' } });
    writes.take();

    expectRefused(
      await request('POST', `/api/templates/${template.data.id}/render`, {
        key: sender.key,
        body: { variables: json('{"user": {"name": "Ada", "constructor": {"x": 1}}}') },
      }),
      422,
      'VALIDATION_ERROR',
      'variables.user.constructor',
    );
    expectRefused(
      await sendWithVariables(sender, json('{"items": [{"ok": 1}, {"__proto__": {"admin": true}}]}')),
      422,
      'VALIDATION_ERROR',
      'variables.items[1].__proto__',
    );
  });

  it('in a public form submission is 422 naming the key, and nothing is stored', async () => {
    const { key } = await createTestAccount();
    const form = await createForm(key);
    writes.take();

    const response = await submit(form.id, json('{"email": "ada@example.com", "__proto__": {"polluted": true}}'));

    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ error: 'VALIDATION_ERROR', field: '__proto__' });
    expect(stored()).toEqual([]);
  });
});

describe('bytes and encodings', () => {
  it('a body that is not valid UTF-8 is 400 INVALID_JSON, and nothing is stored', async () => {
    const { key } = await createTestAccount();
    writes.take();
    const body = Buffer.concat([Buffer.from('{"name": "caf'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);

    const response = await request('POST', '/api/audiences', { key, rawBody: body, headers: { 'content-type': 'application/json' } });

    expectRefused(response, 400, 'INVALID_JSON');
    expect((await request('GET', '/api/audiences', { key })).body.pagination.total).toBe(0);
  });

  it('a Content-Encoding other than identity is 415 UNSUPPORTED_MEDIA_TYPE; identity is accepted', async () => {
    const { key } = await createTestAccount();
    writes.take();
    const text = JSON.stringify({ name: 'Compressed' });

    expectRefused(
      await request('POST', '/api/audiences', { key, rawBody: gzipSync(text), headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    expectRefused(
      await request('POST', '/api/audiences', {
        key,
        rawBody: brotliCompressSync(text),
        headers: { 'content-type': 'application/json', 'content-encoding': 'br' },
      }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    // Declared but not compressed: still refused, as the body cannot be read as the header says.
    expectRefused(
      await request('POST', '/api/audiences', { key, rawBody: text, headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    const plain = await request('POST', '/api/audiences', {
      key,
      rawBody: text,
      headers: { 'content-type': 'application/json', 'content-encoding': 'identity' },
    });
    expect(plain.status).toBe(201);
  });
});

describe('deep nesting with an idempotency key', () => {
  it('is a 4xx on the transactional, email and OTP sends, never a 500, and sends nothing', async () => {
    const sender = await createSender();
    writes.take();
    const to = 'someone@example.org';
    // As text: JSON.stringify of the value itself would overflow the test's own stack.
    const deep = `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`;
    const send = (path: string, fields: Record<string, unknown>, deepField: string) => {
      const text = JSON.stringify({ from: sender.from, ...fields });
      return request('POST', path, {
        key: sender.key,
        rawBody: `${text.slice(0, -1)},${JSON.stringify(deepField)}:${deep}}`,
        headers: { 'content-type': 'application/json' },
      });
    };

    const transactional = await send('/api/transactional/send', { to, subject: 'S', content: 'C', idempotencyKey: 'deep-1' }, 'variables');
    const email = await send('/api/email/send', { recipients: [to], subject: 'S', content: 'C', idempotencyKey: 'deep-2' }, 'variables');
    const otp = await send('/api/otp/send', { to, code: '123456', idempotencyKey: 'deep-3' }, 'appName');

    expect(transactional.body).toMatchObject({ error: 'VALIDATION_ERROR', message: expect.stringContaining(`at most ${MAX_VARIABLE_DEPTH} levels`) });
    expect(transactional.body.field).toMatch(/^variables(\.a)+$/);
    expect(transactional.status).toBe(422);
    expect(email.status).toBe(422);
    expect(email.body.field).toMatch(/^variables(\.a)+$/);
    expect(otp.status).toBe(422);
    expect(otp.body).toMatchObject({ error: 'VALIDATION_ERROR', field: 'appName' });
    expect(stored()).toEqual([]);
  });

  it('variables nested up to the limit are accepted', async () => {
    const sender = await createSender();

    const response = await sendWithVariables(sender, { deep: nested(MAX_VARIABLE_DEPTH - 1) }, { idempotencyKey: 'deep-ok' });

    expect(response.status).toBe(200);
  });
});

describe('limits of a stored object hold for the merged result', () => {
  /** Values of 2,048 three-byte characters: 25 keys fit one request's 256 KB, 50 make the heaviest contact the limits allow (about 310 KB). */
  const fieldsFrom = (prefix: string, count: number) =>
    Object.fromEntries(Array.from({ length: count }, (_, index) => [`${prefix}${index}`, '€'.repeat(2048)]));

  /** A contact holding the 50 custom fields allowed, merged from two requests. */
  async function fullContact(key: string, audienceId: string): Promise<string> {
    const { body: made } = await request('POST', '/api/contacts', { key, body: { email: 'full@example.com', audienceId, customFields: fieldsFrom('a', 25) } });
    const filled = await request('PATCH', `/api/contacts/${made.data.id}`, { key, body: { customFields: fieldsFrom('b', 25) } });
    expect(filled.status).toBe(200);
    expect(Object.keys(filled.body.data.customFields)).toHaveLength(50);
    return made.data.id as string;
  }

  it("a PATCH of customFields that would pass 50 keys once merged is 422 (not a 500 past DynamoDB's 400 KB), and the contact is unchanged", async () => {
    const { key, audienceId } = await withAudience();
    const id = await fullContact(key, audienceId);
    const before = (await request('GET', `/api/contacts/${id}`, { key })).body.data;
    writes.take();

    const grown = await request('PATCH', `/api/contacts/${id}`, { key, body: { customFields: fieldsFrom('c', 25) } });
    expectRefused(grown, 422, 'VALIDATION_ERROR', 'customFields');
    expect(grown.body.message).toMatch(/at most 50 keys/);
    expectRefused(await request('PATCH', `/api/contacts/${id}`, { key, body: { customFields: { extra: 1 } } }), 422, 'VALIDATION_ERROR', 'customFields');

    expect((await request('GET', `/api/contacts/${id}`, { key })).body.data).toEqual(before);
  });

  it('a PATCH that removes as many keys as it adds stays within the limit and succeeds', async () => {
    const { key, audienceId } = await withAudience();
    const id = await fullContact(key, audienceId);

    const swapped = await request('PATCH', `/api/contacts/${id}`, { key, body: { customFields: { a0: null, a1: null, c0: 1, c1: true } } });

    expect(swapped.status).toBe(200);
    expect(Object.keys(swapped.body.data.customFields)).toHaveLength(50);
    expect(swapped.body.data.customFields).toMatchObject({ c0: 1, c1: true });
  });

  it('a bulk import update that would pass the limit once merged fails that entry, naming contacts[i].customFields', async () => {
    const { key, audienceId } = await withAudience();
    const id = await fullContact(key, audienceId);
    const before = (await request('GET', `/api/contacts/${id}`, { key })).body.data;

    const response = await request('POST', '/api/contacts/bulk', {
      key,
      body: { audienceId, contacts: [{ email: 'other@example.com' }, { email: 'full@example.com', customFields: { more: 1 } }] },
    });

    expect(response.body).toMatchObject({
      imported: 1,
      failed: 1,
      errors: [{ index: 1, email: 'full@example.com', error: 'VALIDATION_ERROR', field: 'contacts[1].customFields' }],
    });
    expect((await request('GET', `/api/contacts/${id}`, { key })).body.data).toEqual(before);
  });
});
