/**
 * "One endpoint, one contract" (docs/architecture.md, Adding an endpoint):
 * an endpoint is its entry in functions/<area>/contract.ts plus its handler
 * beside it, and everything else derives from those two files. These checks
 * keep it so: every route comes from a contract whose handler exists and is
 * built from it, nothing elsewhere lists handlers again, and shared/ never
 * reaches up into functions/.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { AREAS, ROUTES } from '#functions/routes.ts';
import { FALLBACK_HANDLER, PREFLIGHT_HANDLER } from '#shared/platform/http/routes.ts';
import { EVENT_FUNCTIONS, FEEDBACK_WORKER } from '../../lib/feedback.ts';
import { EXPORT_WORKER } from '../../lib/exports.ts';
import { RETRY_WORKER } from '../../lib/retry-queue.ts';
import { BROADCAST_WORKER } from '../../lib/broadcasts.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

function filesUnder(directory: string): string[] {
  return readdirSync(join(ROOT, directory), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

/** The source without its comments, so an example in a doc comment is not a list. */
function code(path: string): string {
  return read(path)
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:'"])\/\/[^\n]*/g, '$1');
}

/** Handler modules that are no endpoint of a contract, each with why. */
const NOT_ENDPOINTS: Record<string, string> = {
  [FALLBACK_HANDLER]: 'answers what no route matches (API Gateway $default)',
  [PREFLIGHT_HANDLER]: 'answers the CORS preflights the `cors` routes imply',
  [FEEDBACK_WORKER.handler]: 'invoked by the SES feedback queue (lib/feedback.ts), not over HTTP',
  [RETRY_WORKER.handler]: 'invoked by the retry queue, not over HTTP',
  [EVENT_FUNCTIONS.suppressionReconciliation.handler]: 'invoked by an EventBridge Scheduler schedule, not over HTTP',
  'webhooks/deliver': 'invoked by the webhook delivery queue (lib/webhooks.ts), not over HTTP',
  'events/fan-out': "invoked by the table stream's event source (lib/event-fan-out.ts), not over HTTP",
  [BROADCAST_WORKER.handler]: 'invoked by the broadcast queue (lib/broadcasts.ts), not over HTTP',
  [EXPORT_WORKER.handler]: 'invoked by the export queue (lib/exports.ts), not over HTTP',
};

/**
 * Places outside the contracts that may still name an endpoint's handler, each
 * with why: what they say is not derivable from a contract.
 */
const ALLOWED_MENTIONS: Record<string, string> = {
  'lib/bundling.ts system/docs': 'files the docs page reads at run time, a bundling detail of that one module',
  'bench/bundles.ts templates/create': 'the bench expects the template engine in these bundles: an expectation checked against the build, not a declaration',
  'bench/bundles.ts templates/update': 'as above',
  'bench/bundles.ts templates/render': 'as above',
  'bench/bundles.ts broadcasts/create': 'as above',
  'bench/bundles.ts broadcasts/update': 'as above',
  'dev/openapi/form-posts.ts subscriptions/unsubscribe':
    'the OpenAPI examples of what mail clients and browser forms post: documentation only, kept out of the function bundles',
  'dev/openapi/form-posts.ts forms/confirm': 'as above',
};

describe('one endpoint, one contract', () => {
  const endpoints = Object.entries(AREAS).flatMap(([area, contract]) => Object.entries(contract).map(([action, endpoint]) => ({ area, action, endpoint })));

  it('lists in functions/routes.ts every area that has a contract, and only those', () => {
    const withContract = readdirSync(join(ROOT, 'functions')).filter((area) => existsSync(join(ROOT, 'functions', area, 'contract.ts')));

    expect(Object.keys(AREAS).sort()).toEqual(withContract.sort());
  });

  it('takes every route from a contract, an endpoint once per path', () => {
    const fromContracts = endpoints.flatMap(({ endpoint }) =>
      [endpoint.path, ...(endpoint.aliases ?? [])].map((path) => `${endpoint.method} ${path} ${endpoint.handler}`),
    );

    expect(ROUTES.map((route) => `${route.method} ${route.path} ${route.handler}`)).toEqual(fromContracts);
    expect(new Set(ROUTES.map((route) => `${route.method} ${route.path}`)).size).toBe(ROUTES.length);
  });

  it.each(endpoints.map(({ area, action, endpoint }) => [endpoint.handler, area, action] as const))(
    "%s: its handler is beside its contract and built from that contract's entry",
    (handler, area, action) => {
      const path = `functions/${handler}.ts`;
      // The contract's export is the area's folder in camel case: functions/api-keys/ exports `apiKeys`.
      const name = area.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());

      expect(existsSync(join(ROOT, path)), path).toBe(true);
      expect(code(path)).toMatch(new RegExp(`\\b(?:endpoint|sessionEndpoint|publicEndpoint)\\(${name}\\.${action}\\b`));
      expect(code(path)).toContain(`import { ${name} } from './contract.ts';`);
    },
  );

  it('has no handler module that is neither an endpoint of a contract nor a known non-HTTP function', () => {
    const modules = filesUnder('functions')
      .map((path) => path.replace(/^functions\//, '').replace(/\.ts$/, ''))
      .filter((module) => !module.endsWith('/contract') && module !== 'routes');
    const endpointHandlers = new Set(endpoints.map(({ endpoint }) => endpoint.handler));

    expect(modules.filter((module) => !endpointHandlers.has(module) && !(module in NOT_ENDPOINTS))).toEqual([]);
  });

  it("bundles into a handler only its own area's contract: no endpoint module imports the route table", () => {
    const importers = endpoints
      .map(({ endpoint }) => `functions/${endpoint.handler}.ts`)
      .filter((path) => /from '(?:\.\.\/routes|#functions\/routes)\.ts'/.test(code(path)));

    expect(importers).toEqual([]);
  });

  it('repeats no handler name outside the contracts: no hand-kept list in lib/, dev/, bench/, bin/, scripts/ or test/support/', () => {
    const handlers = [...new Set(endpoints.map(({ endpoint }) => endpoint.handler))];
    const files = ['lib', 'dev', 'bench', 'bin', 'scripts', 'test/support'].flatMap(filesUnder).filter((path) => path !== 'dev/client/schema.ts');
    const mentions = files.flatMap((path) => {
      const text = code(path);
      return handlers
        .filter((handler) => text.includes(`'${handler}'`) || text.includes(`"${handler}"`) || text.includes(`\`${handler}`))
        .map((handler) => `${path} ${handler}`);
    });

    expect(mentions.filter((mention) => !(mention in ALLOWED_MENTIONS))).toEqual([]);
    expect(
      Object.keys(ALLOWED_MENTIONS).filter((mention) => !mentions.includes(mention)),
      'allowed mentions no longer there',
    ).toEqual([]);
  });

  it("types a handler's reply by its contract's reply schema: another body fails the type-check", async () => {
    const { contacts } = await import('#functions/contacts/contract.ts');
    const { endpoint } = await import('#shared/accounts/endpoint.ts');
    const { created, ok } = await import('#shared/platform/http/reply.ts');
    const contact = {
      id: 'con_1',
      email: 'ada@example.com',
      audienceId: 'aud_1',
      firstName: null,
      lastName: null,
      phone: null,
      status: 'subscribed' as const,
      tags: [],
      customFields: {},
      createdAt: '',
      updatedAt: '',
      lastActivityAt: '',
    };

    const built = [
      endpoint(contacts.get, async () => ok({ data: contact })),
      // @ts-expect-error a field the reply schema requires is missing
      endpoint(contacts.get, async () => ok({ data: { ...contact, email: undefined } })),
      // @ts-expect-error a field of the wrong type
      endpoint(contacts.get, async () => ok({ data: { ...contact, status: 'gone' } })),
      // @ts-expect-error a status the contract does not answer with
      endpoint(contacts.get, async () => created(contact)),
    ];

    expect(built.every((handler) => typeof handler === 'function')).toBe(true);
  });

  it('keeps the layers: nothing in shared/ imports from functions/', () => {
    const upward = filesUnder('shared').filter((path) => /from '(?:#functions\/|(?:\.\.\/)+functions\/)/.test(read(path)));

    expect(upward).toEqual([]);
  });
});

describe('rules across fields, in the schemas', () => {
  const documented = JSON.parse(read('docs/openapi.json')) as {
    paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { description?: string } }> } }>>;
  };
  const bodyDescription = (path: string) => documented.paths[path]!.post!.requestBody!.content['application/json']!.schema.description;
  const from = 'hello@example.com';

  it('content or templateId: the send schemas refuse neither and both, so the fuzzers judge by them, and the document says so', async () => {
    const { email } = await import('#functions/email/contract.ts');
    const { transactional } = await import('#functions/transactional/contract.ts');
    const send = { from, recipients: ['ada@example.com'], subject: 'Hi' };
    const single = { from, to: 'ada@example.com', subject: 'Hi' };
    const accepts = (schema: Parameters<typeof v.safeParse>[0], body: unknown) => v.safeParse(schema, body).success;

    expect([
      accepts(email.send.request.body, send),
      accepts(email.send.request.body, { ...send, content: 'x', templateId: 'tpl_1' }),
      accepts(email.send.request.body, { ...send, content: 'x' }),
    ]).toEqual([false, false, true]);
    expect([accepts(transactional.send.request.body, single), accepts(transactional.send.request.body, { ...single, templateId: 'tpl_1' })]).toEqual([
      false,
      true,
    ]);
    expect(bodyDescription('/api/email/send')).toMatch(/`content`.*`templateId`.*not both.*`cc` and `bcc`.*at most 49/s);
    expect(bodyDescription('/api/transactional/send')).toMatch(/`content`.*`templateId`/);
  });

  it('to or email: the OTP schema requires one, and the same address if both, and the document says so', async () => {
    const { otp } = await import('#functions/otp/contract.ts');
    const base = { from, code: '123456' };
    const accepts = (body: unknown) => v.safeParse(otp.send.request.body, body).success;

    expect([accepts(base), accepts({ ...base, to: 'a@example.com', email: 'b@example.com' }), accepts({ ...base, email: 'b@example.com' })]).toEqual([
      false,
      false,
      true,
    ]);
    expect(bodyDescription('/api/otp/send')).toMatch(/`to`.*`email`/);
  });

  it("a form field's options go with its type: the form schemas refuse a choice field without options and options elsewhere, and the document says so", async () => {
    const { forms } = await import('#functions/forms/contract.ts');
    const accepts = (field: Record<string, unknown>) =>
      v.safeParse(forms.create.request.body, { title: 'Signup', fields: [{ id: 'pick', label: 'Pick', ...field }] }).success;
    const fieldDescription = JSON.stringify(documented.paths['/api/forms']!.post!.requestBody).match(/"description":"`options` is required[^"]*"/);

    expect([accepts({ type: 'select' }), accepts({ type: 'text', options: ['a'] }), accepts({ type: 'radio', options: ['a'] })]).toEqual([false, false, true]);
    expect(fieldDescription).not.toBeNull();
  });
});
