/**
 * The OpenAPI 3.1 description of the API, built from the route table: each
 * endpoint's contract (functions/<area>/contract.ts) gives its schemas,
 * replies, summary and description. `npm run openapi` writes it to
 * docs/openapi.json, which GET /openapi.json serves.
 */
import type * as v from 'valibot';
import { toJsonSchema, type ConversionConfig } from '@valibot/to-json-schema';
import type { ErrorCode } from '#shared/platform/errors.ts';
import { statusOf } from '#shared/platform/http/error-envelope.ts';
import { UNCOUNTED_STATUSES } from '#shared/platform/http/middleware.ts';
import { HTML_PAGE, type Endpoint, type RequestSchemas } from '#shared/platform/http/contract.ts';
import { isAuthenticated, type Route } from '#shared/platform/http/routes.ts';
import { audienceListItemSchema, audienceSchema, audienceStatsSchema } from '#shared/audiences/schema.ts';
import { contactListItemSchema, contactSchema } from '#shared/contacts/schema.ts';
import { domainListItemSchema, domainSchema } from '#shared/domains/schema.ts';
import { emailSchema } from '#shared/messages/schema.ts';
import { eventSchema } from '#shared/events/schema.ts';
import { formListItemSchema, formSchema, publicFormSchema, submissionRecordSchema } from '#shared/forms/schema.ts';
import { cursorPagination, pagination } from '#shared/platform/schema/replies.ts';
import { templateListItemSchema, templateSchema } from '#shared/templates/schema.ts';
import { deliverySchema, webhookSchema } from '#shared/webhooks/schema.ts';
import { memberSchema, sessionSchema } from '#shared/people/schema.ts';
import { ROUTES } from '#functions/routes.ts';
import { LOCAL_SERVER } from '#shared/platform/http/api-description.ts';
import { COMPONENT_DESCRIPTIONS, TAG_DESCRIPTIONS, type Area } from './descriptions.ts';
import { errorExamples, sharedErrorExamples, type FieldHints } from './error-examples.ts';
import { FORM_POST_BODIES } from './form-posts.ts';

export type { RequestSchemas };

type JsonObject = Record<string, unknown>;

/** The regions of the default deployment (lib/app.ts DEFAULT_REGIONS): one stack each. */
export const SERVER_REGIONS = { 'us-east-1': 'US East (N. Virginia)', 'eu-west-1': 'Europe (Ireland)' } as const;

/** Resources named in the document, so the typed client has a type for each. */
const NAMED_SCHEMAS = {
  Pagination: pagination,
  Contact: contactSchema,
  ContactListItem: contactListItemSchema,
  Audience: audienceSchema,
  AudienceListItem: audienceListItemSchema,
  AudienceStats: audienceStatsSchema,
  Template: templateSchema,
  TemplateListItem: templateListItemSchema,
  Domain: domainSchema,
  DomainListItem: domainListItemSchema,
  Email: emailSchema,
  CursorPagination: cursorPagination,
  Event: eventSchema,
  Webhook: webhookSchema,
  Delivery: deliverySchema,
  Form: formSchema,
  FormListItem: formListItemSchema,
  PublicForm: publicFormSchema,
  Submission: submissionRecordSchema,
  Member: memberSchema,
  Session: sessionSchema,
};

/**
 * Input types: the document describes what a client sends, before trimming
 * and defaults. Checks JSON Schema cannot state (trim, custom checks) are left
 * to the server, which answers them in the error envelope.
 */
const CONVERSION: ConversionConfig = { target: 'draft-2020-12', typeMode: 'input', errorMode: 'ignore', definitions: NAMED_SCHEMAS };

/**
 * Valibot to JSON Schema, with shared definitions pointing into
 * `components.schemas`. The converter numbers the definitions it makes for
 * lazy schemas from 0 in every call; each is named after its title instead
 * (see componentName), so the same schema has the same name in every body.
 */
function jsonSchemaOf(schema: v.GenericSchema, components: JsonObject): JsonObject {
  const { $schema: _, $defs = {}, ...converted } = toJsonSchema(schema, CONVERSION) as JsonObject & { $defs?: JsonObject };
  const names = new Map<string, string>();
  for (const [id, definition] of Object.entries($defs)) if (!(id in NAMED_SCHEMAS)) names.set(id, componentName(definition as JsonObject, id));
  for (const [id, definition] of Object.entries($defs)) {
    const name = names.get(id) ?? id;
    const component = toComponentRefs(definition, names);
    if (name in components && JSON.stringify(components[name]) !== JSON.stringify(component))
      throw new Error(`Two different schemas are named ${name}: give one another title`);
    components[name] = component;
  }
  return toComponentRefs(converted, names) as JsonObject;
}

/**
 * A lazy schema's component is named after the title of the schema it
 * answers when asked without input (`v.metadata({ title: 'Email attachment' })`
 * gives `EmailAttachment`): a name that says what it is, where a number would
 * change with the order of the routes.
 */
export function componentName(definition: JsonObject, id: string): string {
  if (typeof definition.title !== 'string') {
    throw new Error(
      `A lazy schema needs v.metadata({ title }) to name its component in the API description (definition ${id}: ${JSON.stringify(definition).slice(0, 200)})`,
    );
  }
  return definition.title.replace(/(?:^|[^A-Za-z0-9]+)([A-Za-z0-9])/g, (_, letter: string) => letter.toUpperCase()).replace(/[^A-Za-z0-9]/g, '');
}

function toComponentRefs(value: unknown, names: ReadonlyMap<string, string>): unknown {
  if (Array.isArray(value)) return value.map((item) => toComponentRefs(item, names));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => {
      if (key !== '$ref' || typeof item !== 'string' || !item.startsWith('#/$defs/')) return [key, toComponentRefs(item, names)];
      const id = item.slice('#/$defs/'.length);
      return [key, `#/components/schemas/${names.get(id) ?? id}`];
    }),
  );
}

/**
 * The codes any route of this kind can answer: a key or session is checked
 * and counted (401, 403, 429), a body parsed and validated (400, 413, 415, 422), a query
 * validated; every route may fail unexpectedly (500).
 */
export function derivedErrorCodes(route: Route, schemas: RequestSchemas): ErrorCode[] {
  const codes: ErrorCode[] = ['INTERNAL_ERROR'];
  if (isAuthenticated(route)) codes.push('UNAUTHORIZED', 'FORBIDDEN', 'RATE_LIMIT_EXCEEDED');
  if (schemas.body) codes.push('INVALID_JSON', 'UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE');
  if (schemas.body || schemas.query) codes.push('MISSING_REQUIRED_FIELD', 'INVALID_EMAIL', 'VALIDATION_ERROR');
  return codes;
}

/** Every error code a route can answer, by HTTP status. */
export function errorCodesByStatus(route: Endpoint, schemas: RequestSchemas = route.request): Map<number, ErrorCode[]> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set([...derivedErrorCodes(route, schemas), ...(route.errors ?? [])])) {
    const status = statusOf(code);
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return byStatus;
}

const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': { $ref: '#/components/headers/RateLimitLimit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/RateLimitRemaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/RateLimitReset' },
};

/** Who may call, by the route's `auth`: the document's default (a key or a session) unless stated here. */
const SECURITY_BY_AUTH: Partial<Record<Route['auth'], JsonObject[]>> = {
  public: [],
  session: [{ session: [] }],
};

const HTML_CONTENT = { 'text/html': { schema: { type: 'string' } } };

function operationId(route: Route, routes: readonly Route[]): string {
  const [head, ...rest] = route.handler.split(/[/-]/);
  const base = head + rest.map((part) => part.charAt(0).toUpperCase() + part.slice(1)).join('');
  // One handler may serve several paths (the OTP alias): the first keeps the plain name.
  const index = routes.filter((other) => other.handler === route.handler).indexOf(route);
  return index === 0 ? base : `${base}Alias${index}`;
}

function parametersOf(route: Route, schemas: RequestSchemas, components: JsonObject): JsonObject[] {
  const path = [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
  if (!schemas.query) return path;
  const query = jsonSchemaOf(schemas.query, components) as { properties?: Record<string, JsonObject>; required?: string[] };
  return [
    ...path,
    ...Object.entries(query.properties ?? {}).map(([name, schema]) => ({ name, in: 'query', required: query.required?.includes(name) ?? false, schema })),
  ];
}

function requestBodyOf(route: Route, operation: Endpoint, body: v.GenericSchema, components: JsonObject): JsonObject {
  const schema = jsonSchemaOf(body, components);
  // The same example serves both: OpenAPI serializes an object example into the form fields.
  const json = { schema, ...(operation.example ? { example: operation.example } : {}) };
  return {
    required: true,
    content: {
      'application/json': json,
      ...(route.bodyFormats?.includes('form') ? { 'application/x-www-form-urlencoded': json } : {}),
    },
  };
}

const ADDRESS_FIELD = /^(?:email|to|from|recipients|cc|bcc|replyTo|notifyEmail)$/;

/** The fields an operation's validation error examples name: its own, so an example never points at a field the request has not. */
function fieldHints(schemas: RequestSchemas): FieldHints {
  const hints: FieldHints = {};
  for (const schema of [schemas.body, schemas.query]) {
    if (!schema) continue;
    const { properties = {}, required = [] } = toJsonSchema(schema, CONVERSION) as { properties?: Record<string, { type?: string }>; required?: string[] };
    const address = Object.keys(properties).find((name) => ADDRESS_FIELD.test(name));
    hints.required ??= required[0];
    hints.any ??= Object.keys(properties)[0];
    hints.address ??= address && (properties[address]?.type === 'array' ? `${address}[0]` : address);
  }
  return hints;
}

/**
 * API Gateway's own answer when the stage's throttle (context
 * `postlane:throttle*`) refuses a request before any function runs; the
 * operations that answer 429 themselves describe their own.
 */
const STAGE_THROTTLED = {
  description: "Too many requests to this deployment: API Gateway's stage throttle refused the request before it reached the service. Retry with backoff.",
  content: {
    'application/json': {
      schema: { type: 'object', required: ['message'], properties: { message: { type: 'string' } } },
      example: { message: 'Too Many Requests' },
    },
  },
};

function responsesOf(route: Endpoint, operation: Endpoint, schemas: RequestSchemas, components: JsonObject): JsonObject {
  const counted = isAuthenticated(route) ? RATE_LIMIT_HEADERS : {};
  const headers = (status: number) => (UNCOUNTED_STATUSES.includes(status) ? {} : counted);
  const responses: JsonObject = {};
  for (const [status, reply] of Object.entries(operation.responses)) {
    responses[status] = {
      description: operation.summary,
      headers: headers(Number(status)),
      content:
        reply === HTML_PAGE
          ? HTML_CONTENT
          : {
              'application/json': { schema: jsonSchemaOf(reply!, components) },
              ...(operation.pageStatuses?.includes(Number(status)) ? HTML_CONTENT : {}),
            },
    };
  }
  const byStatus = errorCodesByStatus(route, schemas);
  for (const status of operation.pageStatuses ?? []) if (!byStatus.has(status) && !(status in responses)) byStatus.set(status, []);
  const hints = fieldHints(schemas);
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const envelope =
      codes.length > 0
        ? {
            'application/json': {
              schema: { allOf: [{ $ref: '#/components/schemas/ErrorEnvelope' }, { properties: { error: { enum: codes } } }] },
              examples: errorExamples(codes, hints),
            },
          }
        : {};
    responses[String(status)] = {
      description: codes.length > 0 ? codes.join(', ') : 'An HTML page explaining the problem',
      headers: { ...headers(status), ...(status === 429 ? { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } : {}) },
      content: { ...envelope, ...(operation.pageStatuses?.includes(status) ? HTML_CONTENT : {}) },
    };
  }
  responses['429'] ??= { $ref: '#/components/responses/StageThrottled' };
  return responses;
}

/** A component with its description (dev/openapi/descriptions.ts), unless its schema carries one of its own (`v.metadata`). */
function described(name: string, schema: JsonObject): JsonObject {
  const description = COMPONENT_DESCRIPTIONS[name];
  return schema.description !== undefined || description === undefined ? schema : { description, ...schema };
}

function errorEnvelopeSchema(): JsonObject {
  return {
    type: 'object',
    description: 'Every failure. A failed email send also carries the fields of its send result.',
    required: ['success', 'error', 'message'],
    properties: {
      success: { const: false },
      error: { $ref: '#/components/schemas/ErrorCode' },
      message: { type: 'string' },
      field: { type: 'string', description: 'Path into the request of the value at fault: `contacts[12].email`, `limit`' },
      retryAfter: { type: 'integer', description: 'Seconds to wait before retrying (also the Retry-After header)' },
    },
  };
}

const domain = { default: 'api.example.com', description: 'The `postlane:domainName` of the deployment' };
const region = {
  default: 'us-east-1',
  enum: Object.keys(SERVER_REGIONS),
  description: Object.entries(SERVER_REGIONS)
    .map(([code, name]) => `${code}: ${name}`)
    .join('; '),
};

/** The whole document of the given routes, each its endpoint's contract. */
export function buildDocument(version: string, routes: readonly Endpoint[] = ROUTES): JsonObject {
  const components: JsonObject = {};
  const paths: Record<string, JsonObject> = {};
  for (const route of routes) {
    const { handler } = route;
    const operation = route;
    const schemas = route.request;
    const parameters = parametersOf(route, schemas, components);
    paths[route.path] = {
      ...paths[route.path],
      [route.method.toLowerCase()]: {
        operationId: operationId(route, routes),
        tags: [handler.split('/')[0]],
        summary: operation.summary,
        description: operation.description,
        ...(SECURITY_BY_AUTH[route.auth] ? { security: SECURITY_BY_AUTH[route.auth] } : {}),
        ...(parameters.length > 0 ? { parameters } : {}),
        ...(schemas.body
          ? { requestBody: requestBodyOf(route, operation, schemas.body, components) }
          : FORM_POST_BODIES[handler]
            ? { requestBody: FORM_POST_BODIES[handler] }
            : {}),
        responses: responsesOf(route, operation, schemas, components),
      },
    };
  }
  const allCodes = [...new Set(routes.flatMap((route) => [...errorCodesByStatus(route).values()].flat()))].sort();
  return {
    openapi: '3.1.0',
    info: {
      title: 'Postlane API',
      version,
      contact: { name: 'The operators of this deployment' },
      // The project is not published under a license (package.json is private).
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      description:
        "Email delivery and contact management. Every request carries `x-api-key` or a signed-in person's session cookie unless the operation is marked public; the team and the session itself take the session only. Keyed responses carry the rate-limit headers, except 401, 403 and 413, which are answered before the request is counted. Every GET also answers HEAD (the same status and headers, no body). The public form view and submit answer CORS preflights (OPTIONS) and carry Access-Control-Allow-Origin for the deployment's allowed origins (any by default), never with credentials; keyed operations answer no preflight. The deployment throttles each stage (429 beyond it), tighter on public operations.",
    },
    // The custom domain (README, Deploying: `postlane:domainName`) answers on one latency-routed name and on one name per region.
    servers: [
      { url: 'https://{domain}', description: 'The nearest region, behind your custom domain', variables: { domain } },
      { url: 'https://{region}.{domain}', description: 'One region, behind your custom domain', variables: { region, domain } },
      {
        url: 'https://{apiId}.execute-api.{region}.amazonaws.com',
        description: "One region at its API Gateway address (the stack's output)",
        variables: { apiId: { default: 'abc123defg', description: 'The HTTP API id' }, region },
      },
      LOCAL_SERVER,
    ],
    security: [{ apiKey: [] }, { session: [] }],
    tags: [...new Set(routes.map((route) => route.handler.split('/')[0] as Area))].map((name) => ({ name, description: TAG_DESCRIPTIONS[name] })),
    paths,
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: '`svc_live_…` or `svc_test_…`; `sending` keys reach only the send endpoints' },
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: 'postlane_session',
          description:
            "A signed-in person's session (POST /api/session), named `__Host-postlane_session` when the deployment is served over https. A request with `x-api-key` too is judged by the key. Requests other than GET and HEAD must carry an `Origin` equal to the deployment's.",
        },
      },
      headers: {
        RateLimitLimit: { description: 'Requests allowed in the current window', schema: { type: 'integer' } },
        RateLimitRemaining: { description: 'Requests left in the current window', schema: { type: 'integer' } },
        RateLimitReset: { description: 'Unix time (seconds) when the window resets', schema: { type: 'integer' } },
        RetryAfter: { description: 'Seconds to wait before retrying', schema: { type: 'integer' } },
      },
      responses: { StageThrottled: STAGE_THROTTLED },
      examples: sharedErrorExamples(allCodes),
      schemas: {
        ...Object.fromEntries(
          Object.entries(components)
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([name, schema]) => [name, described(name, schema as JsonObject)]),
        ),
        ErrorCode: { type: 'string', description: COMPONENT_DESCRIPTIONS.ErrorCode, enum: allCodes },
        ErrorEnvelope: errorEnvelopeSchema(),
      },
    },
  };
}
