/**
 * What the reader of docs/openapi.json (and of /docs) sees beyond the
 * schemas: error examples that can happen, described tags and components,
 * and the bodies of the form posts a browser or mail client sends.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as v from 'valibot';
import type { ErrorCode } from '#shared/platform/errors.ts';
import { statusOf } from '#shared/platform/http/error-envelope.ts';
import { ROUTES } from '#functions/routes.ts';
import { HTML_PAGE } from '#shared/platform/http/contract.ts';
import { isAuthenticated } from '#shared/platform/http/routes.ts';
import { createAudience } from '#shared/audiences/service.ts';
import { createContact, getContact } from '#shared/contacts/service.ts';
import { subscriptionLinks } from '#shared/sending/subscription-links.ts';
import { buildDocument, errorCodesByStatus } from '#dev/openapi/document.ts';
import { createTestAccount } from '../support/accounts.ts';
import { request } from '../support/api.ts';
import { createForm } from '../forms/support.ts';

interface MediaType {
  schema?: unknown;
  example?: unknown;
  examples?: Record<string, { $ref?: string; value?: unknown }>;
}
interface Response {
  $ref?: string;
  content?: Record<string, MediaType>;
}
interface Operation {
  tags?: string[];
  requestBody?: { required?: boolean; content: Record<string, MediaType> };
  responses: Record<string, Response>;
}
interface Document {
  tags: { name: string; description?: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, { title?: string; description?: string }>;
    examples: Record<string, { value: unknown }>;
    responses: Record<string, unknown>;
  };
}

const document = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8')) as Document;
const operationOf = (route: (typeof ROUTES)[number]) => document.paths[route.path]![route.method.toLowerCase()]!;

/** An example's value, following a `$ref` into components.examples. */
function exampleValue(example: { $ref?: string; value?: unknown }): unknown {
  return example.$ref ? document.components.examples[example.$ref.replace('#/components/examples/', '')]!.value : example.value;
}

/** A form post's fields as the browser or mail client sends them. */
const urlencoded = (fields: unknown) => new URLSearchParams(fields as Record<string, string>).toString();

describe('error examples', () => {
  it('show, at every error status of every operation, only codes that status has for that operation, one example per code', async () => {
    let checked = 0;

    for (const route of ROUTES) {
      const possible = errorCodesByStatus(route);
      for (const [status, response] of Object.entries(operationOf(route).responses)) {
        const json = response.content?.['application/json'];
        if (Number(status) < 400 || response.$ref || !json) continue;
        const where = `${route.method} ${route.path} ${status}`;
        const codes = Object.values(json.examples ?? {}).map((example) => (exampleValue(example) as { error: ErrorCode }).error);

        expect(codes.length, where).toBeGreaterThan(0);
        for (const code of codes) expect(statusOf(code), `${where} shows ${code}`).toBe(Number(status));
        expect(codes.sort(), where).toEqual([...(possible.get(Number(status)) ?? [])].sort());
        checked += codes.length;
      }
    }
    expect(checked).toBeGreaterThan(200);
  });

  it("name a field of the operation's own request in validation examples", () => {
    const create = operationOf(ROUTES.find((route) => route.handler === 'templates/create')!);
    const send = operationOf(ROUTES.find((route) => route.handler === 'email/send')!);

    expect(exampleValue(create.responses['400']!.content!['application/json']!.examples!.MISSING_REQUIRED_FIELD!)).toMatchObject({ field: 'name' });
    expect(exampleValue(send.responses['422']!.content!['application/json']!.examples!.INVALID_EMAIL!)).toMatchObject({ field: 'from' });
  });

  it("answer the stage throttle's 429 (API Gateway's own body) on the operations that have no 429 of their own", () => {
    for (const route of ROUTES) {
      const throttled = operationOf(route).responses['429'];
      const own = isAuthenticated(route) || route.handler === 'forms/submit';
      expect(throttled?.$ref === '#/components/responses/StageThrottled', route.handler).toBe(!own);
    }
    expect(document.components.responses.StageThrottled).toMatchObject({ content: { 'application/json': { example: { message: 'Too Many Requests' } } } });
  });
});

describe('tags', () => {
  it('tag every operation, and each tag used is listed with a description', () => {
    const used = new Set(ROUTES.flatMap((route) => operationOf(route).tags ?? []));

    for (const route of ROUTES) expect(operationOf(route).tags?.length, route.handler).toBeGreaterThan(0);
    expect(document.tags.map((tag) => tag.name).sort()).toEqual([...used].sort());
    for (const tag of document.tags) expect(tag.description, tag.name).toMatch(/\w{3,}/);
  });
});

describe('component schemas', () => {
  it('are named for what they are, never numbered (Lazy1), and each has a title or description', () => {
    const names = Object.keys(document.components.schemas);

    expect(names.filter((name) => /^Lazy\d*$/.test(name))).toEqual([]);
    expect(names).toContain('EmailAttachment');
    for (const [name, schema] of Object.entries(document.components.schemas)) expect(schema.title ?? schema.description, name).toMatch(/\w{3,}/);
  });

  it('name a lazy schema from its metadata title, and refuse one without', async () => {
    const withLazy = (lazy: v.GenericSchema) =>
      buildDocument(
        '0',
        ROUTES.map((route) => (route.handler === 'templates/render' ? { ...route, request: { body: v.object({ variables: lazy }) } } : route)),
      ) as unknown as Document;

    const titled = withLazy(v.lazy(() => v.pipe(v.record(v.string(), v.string()), v.metadata({ title: 'Template variables', description: 'Values by name' }))));

    expect(titled.components.schemas.TemplateVariables).toMatchObject({ title: 'Template variables', description: 'Values by name' });
    expect(() => withLazy(v.lazy(() => v.record(v.string(), v.string())))).toThrow('A lazy schema needs v.metadata({ title })');
  });
});

describe('form-post bodies', () => {
  it('document RFC 8058 one-click unsubscribe, and its documented example unsubscribes the contact over HTTP', async () => {
    const body = operationOf(ROUTES.find((route) => route.handler === 'subscriptions/unsubscribe')!).requestBody!;
    const oneClick = body.content['application/x-www-form-urlencoded']!.examples!.oneClick!.value;
    const { accountId } = await createTestAccount();
    const audience = await createAudience(accountId, { name: 'One-click' }, new Date());
    const contact = await createContact(accountId, { email: 'ann@example.com', audienceId: audience.id }, new Date());
    const { unsubscribeUrl } = await subscriptionLinks(accountId, 'ann@example.com');

    const done = await request('POST', new URL(unsubscribeUrl).pathname, {
      rawBody: urlencoded(oneClick),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });

    expect(body.required).toBe(false);
    expect(oneClick).toEqual({ 'List-Unsubscribe': 'One-Click' });
    expect(Object.keys(body.content).sort()).toEqual(['application/x-www-form-urlencoded', 'multipart/form-data']);
    expect(done.status).toBe(200);
    expect((await getContact(accountId, contact.id)).status).toBe('unsubscribed');
  });

  it('document a form media type with an example on every POST a browser form sends, and a published form takes its example', async () => {
    // The public POSTs that answer a page: a browser's form sends them (signing in is JSON only, from the dashboard's script).
    const formPosts = ROUTES.filter(
      (route) => route.method === 'POST' && route.auth === 'public' && (route.responses[200] === HTML_PAGE || (route.pageStatuses ?? []).length > 0),
    );
    for (const route of formPosts) {
      const form = operationOf(route).requestBody?.content['application/x-www-form-urlencoded'];
      expect(form?.schema, route.handler).toBeDefined();
      expect(form?.example ?? form?.examples, route.handler).toBeDefined();
    }
    const { key } = await createTestAccount();
    const published = await createForm(key);
    const example = operationOf(ROUTES.find((route) => route.handler === 'forms/submit')!).requestBody!.content['application/x-www-form-urlencoded']!.example;

    const submitted = await request('POST', `/api/forms/${published.id}/submit`, {
      rawBody: urlencoded(example),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });

    expect(formPosts.map((route) => route.handler).sort()).toEqual([
      'forms/confirm',
      'forms/submit',
      'subscriptions/unsubscribe',
      'subscriptions/update-preferences',
    ]);
    expect(submitted.status).toBe(200);
  });
});
