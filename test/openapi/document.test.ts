import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { validate } from '@readme/openapi-parser';
import { toJsonSchema } from '@valibot/to-json-schema';
import { ROUTES } from '#functions/routes.ts';
import { derivedErrorCodes } from '#dev/openapi/document.ts';
import { openApiJson, typedClientSource } from '#dev/openapi/generate.ts';
import { request } from '../support/api.ts';
import { DEFAULT_REGIONS } from '../../lib/app.ts';

const committed = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const documentJson = committed('docs/openapi.json');
const document = JSON.parse(documentJson) as {
  paths: Record<
    string,
    Record<
      string,
      {
        summary: string;
        description?: string;
        security?: unknown[];
        requestBody?: { content: Record<string, { schema: unknown; example?: unknown }> };
        parameters?: { name: string; in: string }[];
        responses: Record<
          string,
          { content?: Record<string, { schema: { allOf?: [unknown, { properties: { error: { enum: string[] } } }] } }>; headers?: Record<string, unknown> }
        >;
      }
    >
  >;
};
const operationOf = (route: (typeof ROUTES)[number]) => document.paths[route.path]![route.method.toLowerCase()]!;

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await validate(JSON.parse(documentJson));

    expect(result).toMatchObject({ valid: true, specification: 'OpenAPI' });
    expect(JSON.parse(documentJson).openapi).toBe('3.1.0');
  });

  it('is current: docs/openapi.json and the client types equal a fresh generation (npm run openapi)', async () => {
    const fresh = await openApiJson();

    expect(documentJson).toBe(fresh);
    expect(committed('dev/client/schema.ts')).toBe(await typedClientSource(JSON.parse(fresh)));
  });

  it('has one operation per route of the route table, and nothing else', () => {
    const documented = Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`));

    expect(documented.sort()).toEqual(ROUTES.map((route) => `${route.method} ${route.path}`).sort());
  });

  it("gives every operation its contract's summary and a description of a sentence or two", () => {
    for (const route of ROUTES) {
      const operation = operationOf(route);
      expect({ summary: operation.summary, description: operation.description }, route.handler).toEqual({
        summary: route.summary,
        description: route.description,
      });
      expect(route.description.length, route.handler).toBeGreaterThan(20);
    }
  });

  it("documents each contract's request schemas: body, query and path parameters", () => {
    // References are compared by place, not name: the document names the converter's numbered definitions.
    const withoutRefNames = (json: string) => json.replace(/"\$ref":"[^"]*"/g, '"$ref":"…"');
    const asJsonSchema = (schema: v.GenericSchema) =>
      withoutRefNames(JSON.stringify(toJsonSchema(schema, { target: 'draft-2020-12', typeMode: 'input', errorMode: 'ignore' }).properties ?? {}));

    for (const route of ROUTES) {
      const { body, query } = route.request;
      const operation = operationOf(route);
      const documentedBody = operation.requestBody?.content['application/json']?.schema as { properties?: unknown } | undefined;
      expect(documentedBody === undefined, `${route.handler} request body`).toBe(body === undefined);
      if (body) expect(withoutRefNames(JSON.stringify(documentedBody?.properties ?? {})), route.handler).toBe(asJsonSchema(body));
      const queryNames = (operation.parameters ?? []).filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name);
      expect(queryNames, `${route.handler} query`).toEqual(query ? Object.keys(JSON.parse(asJsonSchema(query))) : []);
      const pathNames = (operation.parameters ?? []).filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name);
      expect(pathNames, `${route.handler} path`).toEqual([...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => name));
    }
  });

  it('gives examples that the handlers accept, on every route with a body', () => {
    const withBodies = ROUTES.filter((route) => route.request.body);

    expect(withBodies.length).toBeGreaterThan(10);
    for (const route of withBodies) {
      expect(route.example, route.handler).toBeDefined();
      const result = v.safeParse(route.request.body!, route.example);
      expect(result.issues?.map((issue) => issue.message) ?? [], route.handler).toEqual([]);
    }
  });

  it('marks the public routes and documents the key errors and rate-limit headers on the others', () => {
    for (const route of ROUTES) {
      const operation = operationOf(route);
      const codesAt = (status: number) => operation.responses[String(status)]?.content?.['application/json']?.schema.allOf?.[1].properties.error.enum;
      if (route.auth === 'public') {
        expect(operation.security, route.handler).toEqual([]);
        expect(codesAt(401) ?? [], route.handler).not.toContain('UNAUTHORIZED');
      } else {
        // Keyed routes take the document's default (a key or a session); the team and the session itself, the session alone.
        expect(operation.security, route.handler).toEqual(route.auth === 'session' ? [{ session: [] }] : undefined);
        expect(codesAt(401), route.handler).toEqual(['UNAUTHORIZED']);
        expect(codesAt(429), route.handler).toContain('RATE_LIMIT_EXCEEDED');
        expect(Object.keys((operation.responses['200'] ?? operation.responses['201'] ?? operation.responses['202'])!.headers ?? {}), route.handler).toEqual(
          expect.arrayContaining(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']),
        );
        expect(Object.keys(operation.responses['429']!.headers ?? {}), route.handler).toContain('Retry-After');
      }
    }
  });

  it('derives the validation errors of routes with a body or query, and the route-specific codes', () => {
    const contactsGet = operationOf(ROUTES.find((route) => route.handler === 'contacts/get')!);
    const contactsCreate = operationOf(ROUTES.find((route) => route.handler === 'contacts/create')!);
    const codes = (operation: typeof contactsGet, status: string) =>
      operation.responses[status]?.content?.['application/json']?.schema.allOf?.[1].properties.error.enum;

    expect(codes(contactsGet, '404')).toEqual(['CONTACT_NOT_FOUND']);
    expect(codes(contactsGet, '422')).toBeUndefined();
    expect(codes(contactsCreate, '400')).toEqual(['INVALID_JSON', 'MISSING_REQUIRED_FIELD']);
    expect(codes(contactsCreate, '413')).toEqual(['PAYLOAD_TOO_LARGE']);
    expect(codes(contactsCreate, '409')).toEqual(['CONTACT_EXISTS', 'CONFLICT']);
    expect(derivedErrorCodes(ROUTES.find((route) => route.handler === 'forms/page')!, {})).toEqual(['INTERNAL_ERROR']);
  });

  it('names the US and EU deployments as server variables', () => {
    const { servers } = JSON.parse(documentJson) as { servers: { url: string; variables?: Record<string, { enum?: string[] }> }[] };

    expect(servers.map((server) => server.url)).toEqual([
      'https://{domain}',
      'https://{region}.{domain}',
      'https://{apiId}.execute-api.{region}.amazonaws.com',
      'http://127.0.0.1:3000',
    ]);
    expect(servers[1]?.variables?.region?.enum).toEqual(DEFAULT_REGIONS);
    expect(servers[2]?.variables?.region?.enum).toEqual(DEFAULT_REGIONS);
  });
});

describe('GET /openapi.json', () => {
  it('serves the committed document without a key, its server list led by this deployment', async () => {
    const response = await request('GET', '/openapi.json');

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect({ ...response.body, servers: [] }).toEqual({ ...JSON.parse(documentJson), servers: [] });
  });
});
