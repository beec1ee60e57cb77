/**
 * A typical request to each endpoint, for counting its DynamoDB round trips
 * and capacity. `prepare` makes what the request needs (not metered); the
 * request itself goes through the local HTTP server like any client's.
 */
import { expectCall } from './stack.ts';
import { formBody, uniqueEmail, type BenchAccount } from './fixtures.ts';

export interface Call {
  method: string;
  path: string;
  key?: string;
  body?: unknown;
  /** The status a correct answer has. */
  status: number;
}

export interface Scenario {
  /** As written in the round-trip table of docs/data-model.md. */
  name: string;
  prepare(): Promise<Call>;
}

let slugs = 0;

/** Builds the scenarios for `account`, creating the shared resources they read (one audience with contacts, a template, a form). */
export async function buildScenarios(api: string, account: BenchAccount): Promise<Scenario[]> {
  const key = account.liveKeys[0]!;
  const testKey = account.testKeys[0]!;
  const post = (path: string, body: unknown) => expectCall(api, 201, 'POST', path, { key, body });
  const newAudience = async () => (await post('/api/audiences', { name: 'Bench audience' })).data.id as string;
  const audienceId = await newAudience();
  const newContact = async () => (await post('/api/contacts', { email: uniqueEmail(), audienceId, firstName: 'Ann' })).data as { id: string; email: string };
  for (let index = 0; index < 20; index++) await newContact();
  const contact = await newContact();
  const template = { name: 'Welcome', subject: 'Hello {{firstName}}', components: [{ type: 'text', content: 'Hi {{firstName|"there"}}, welcome.' }] };
  const newTemplate = async () => (await post('/api/templates', template)).data.id as string;
  const templateId = await newTemplate();
  const newForm = async () => (await post('/api/forms', formBody(`bench-${process.pid}-${slugs++}`))).data as { id: string; slug: string };
  const form = await newForm();
  const domains = (await expectCall(api, 200, 'GET', '/api/domains', { key })).domains as { id: string }[];
  const sent = await expectCall(api, 200, 'POST', '/api/transactional/send', {
    key: testKey,
    body: { from: account.from, to: uniqueEmail(), subject: 'Receipt', content: '<p>Thanks</p>' },
  });

  // Seven webhook creates in all (warm-up and runs, and this one): under the 20 endpoints an account may have.
  const webhook = { url: 'http://127.0.0.1:9/bench', events: ['*'] };
  const webhookId = (await post('/api/webhooks', webhook)).data.id as string;
  const broadcast = { audienceId, from: account.from, subject: 'Bench news', content: '<p>News</p>' };
  const broadcastId = (await post('/api/broadcasts', broadcast)).data.id as string;

  const keyed = (method: string, path: string, status = 200, body?: unknown): Call => ({ method, path, key, status, ...(body === undefined ? {} : { body }) });
  const send = (path: string, body: Record<string, unknown>, sendKey = testKey): Call => ({
    method: 'POST',
    path,
    key: sendKey,
    status: 200,
    body: { from: account.from, ...body },
  });

  return [
    { name: 'POST /api/audiences', prepare: async () => keyed('POST', '/api/audiences', 201, { name: 'Another' }) },
    { name: 'GET /api/audiences/{id}', prepare: async () => keyed('GET', `/api/audiences/${audienceId}`) },
    { name: 'GET /api/audiences/{id}/stats', prepare: async () => keyed('GET', `/api/audiences/${audienceId}/stats`) },
    { name: 'GET /api/audiences', prepare: async () => keyed('GET', '/api/audiences?limit=10') },
    { name: 'PATCH /api/audiences/{id}', prepare: async () => keyed('PATCH', `/api/audiences/${audienceId}`, 200, { description: 'Benchmark' }) },
    { name: 'DELETE /api/audiences/{id}', prepare: async () => keyed('DELETE', `/api/audiences/${await newAudience()}`) },
    { name: 'POST /api/contacts', prepare: async () => keyed('POST', '/api/contacts', 201, { email: uniqueEmail(), audienceId, firstName: 'Ann' }) },
    { name: 'GET /api/contacts/{id}', prepare: async () => keyed('GET', `/api/contacts/${contact.id}`) },
    {
      name: 'GET /api/contacts/email/{email}',
      prepare: async () => keyed('GET', `/api/contacts/email/${encodeURIComponent(contact.email)}?audienceId=${audienceId}`),
    },
    { name: 'GET /api/contacts?audienceId', prepare: async () => keyed('GET', `/api/contacts?audienceId=${audienceId}&limit=20`) },
    { name: 'PATCH /api/contacts/{id}', prepare: async () => keyed('PATCH', `/api/contacts/${contact.id}`, 200, { firstName: 'Bea' }) },
    { name: 'DELETE /api/contacts/{id}', prepare: async () => keyed('DELETE', `/api/contacts/${(await newContact()).id}`) },
    {
      name: 'POST /api/contacts/bulk (10 new)',
      prepare: async () =>
        keyed('POST', '/api/contacts/bulk', 200, { audienceId, contacts: Array.from({ length: 10 }, () => ({ email: uniqueEmail('bulk') })) }),
    },
    { name: 'POST /api/templates', prepare: async () => keyed('POST', '/api/templates', 201, template) },
    { name: 'GET /api/templates/{id}', prepare: async () => keyed('GET', `/api/templates/${templateId}`) },
    { name: 'GET /api/templates', prepare: async () => keyed('GET', '/api/templates?limit=10') },
    { name: 'PATCH /api/templates/{id}', prepare: async () => keyed('PATCH', `/api/templates/${templateId}`, 200, { subject: 'Hi {{firstName}}' }) },
    {
      name: 'POST /api/templates/{id}/render',
      prepare: async () => keyed('POST', `/api/templates/${templateId}/render`, 200, { variables: { firstName: 'Ann' } }),
    },
    { name: 'DELETE /api/templates/{id}', prepare: async () => keyed('DELETE', `/api/templates/${await newTemplate()}`) },
    { name: 'GET /api/domains', prepare: async () => keyed('GET', '/api/domains') },
    { name: 'GET /api/domains/{id} (verified)', prepare: async () => keyed('GET', `/api/domains/${domains[0]!.id}`) },
    {
      name: 'POST /api/email/send (test key, 1 recipient)',
      prepare: async () => send('/api/email/send', { recipients: [uniqueEmail()], subject: 'News', content: '<p>Hello</p>' }),
    },
    {
      name: 'POST /api/email/send (live key, 1 recipient)',
      prepare: async () => send('/api/email/send', { recipients: [uniqueEmail()], subject: 'News', content: '<p>Hello</p>' }, key),
    },
    {
      name: 'POST /api/email/send (test key, template)',
      prepare: async () => send('/api/email/send', { recipients: [uniqueEmail()], templateId, variables: { firstName: 'Ann' } }),
    },
    {
      // Round trips per message are this row's divided by 100: what a batch saves over 100 sends is the auth and rate window of each.
      name: 'POST /api/email/batch (test key, 100 emails)',
      prepare: async () => ({
        method: 'POST',
        path: '/api/email/batch',
        key: testKey,
        status: 200,
        body: { emails: Array.from({ length: 100 }, () => ({ from: account.from, recipients: [uniqueEmail()], subject: 'News', content: '<p>Hello</p>' })) },
      }),
    },
    { name: 'POST /api/otp/send (test key)', prepare: async () => send('/api/otp/send', { to: uniqueEmail(), code: '123456' }) },
    {
      name: 'POST /api/otp/send (test key, idempotency key)',
      prepare: async () => send('/api/otp/send', { to: uniqueEmail(), code: '123456', idempotencyKey: uniqueEmail('idem') }),
    },
    {
      name: 'POST /api/transactional/send (test key)',
      prepare: async () => send('/api/transactional/send', { to: uniqueEmail(), subject: 'Receipt', content: '<p>Thanks</p>' }),
    },
    { name: 'GET /api/emails/{id}', prepare: async () => keyed('GET', `/api/emails/${sent.emailId}`) },
    { name: 'POST /api/forms', prepare: async () => keyed('POST', '/api/forms', 201, formBody(`bench-${process.pid}-${slugs++}`)) },
    { name: 'GET /api/forms/{id}', prepare: async () => keyed('GET', `/api/forms/${form.id}`) },
    { name: 'GET /api/forms', prepare: async () => keyed('GET', '/api/forms?limit=10') },
    { name: 'PATCH /api/forms/{id}', prepare: async () => keyed('PATCH', `/api/forms/${form.id}`, 200, { description: 'Benchmark' }) },
    { name: 'DELETE /api/forms/{id}', prepare: async () => keyed('DELETE', `/api/forms/${(await newForm()).id}`) },
    { name: 'GET /api/forms/public/{slug}', prepare: async () => ({ method: 'GET', path: `/api/forms/public/${form.slug}`, status: 200 }) },
    { name: 'GET /f/{slug}', prepare: async () => ({ method: 'GET', path: `/f/${form.slug}`, status: 200 }) },
    {
      name: 'POST /api/forms/{id}/submit',
      prepare: async () => ({ method: 'POST', path: `/api/forms/${form.id}/submit`, status: 200, body: { email: uniqueEmail(), firstName: 'Ann' } }),
    },
    { name: 'GET /api/forms/{id}/submissions', prepare: async () => keyed('GET', `/api/forms/${form.id}/submissions?limit=10`) },
    { name: 'GET /api/emails', prepare: async () => keyed('GET', '/api/emails?limit=10') },
    { name: 'GET /api/emails/{id}/events', prepare: async () => keyed('GET', `/api/emails/${sent.emailId}/events`) },
    { name: 'GET /api/events', prepare: async () => keyed('GET', '/api/events?limit=10') },
    { name: 'GET /api/stats', prepare: async () => keyed('GET', '/api/stats') },
    { name: 'POST /api/webhooks', prepare: async () => keyed('POST', '/api/webhooks', 201, webhook) },
    { name: 'GET /api/webhooks', prepare: async () => keyed('GET', '/api/webhooks') },
    { name: 'GET /api/webhooks/{id}', prepare: async () => keyed('GET', `/api/webhooks/${webhookId}`) },
    { name: 'POST /api/broadcasts', prepare: async () => keyed('POST', '/api/broadcasts', 201, broadcast) },
    { name: 'GET /api/broadcasts/{id}', prepare: async () => keyed('GET', `/api/broadcasts/${broadcastId}`) },
    { name: 'GET /api/broadcasts', prepare: async () => keyed('GET', '/api/broadcasts?limit=10') },
  ];
}
