/**
 * Every response the suite receives, success or error, must be the one the
 * API description documents for its route and status: test/support/api.ts
 * (raw requests, invoke) and test/support/client.ts (the typed client) run
 * each through `assertDocumented`. So the whole suite is the contract test.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import document from '../../docs/openapi.json' with { type: 'json' };
import { UNCOUNTED_STATUSES } from '#shared/http/middleware.ts';
import { matchRoute } from '#shared/http/routes.ts';
import { ROUTES } from '#functions/routes.ts';

const DOCUMENT_ID = 'openapi.json';

// OpenAPI keywords (`example`, `discriminator`) are not JSON Schema's: not strict.
const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormats as unknown as (ajv: Ajv2020) => void)(ajv);
ajv.addSchema(document, DOCUMENT_ID);

const validators = new Map<string, ValidateFunction>();

function pointer(...segments: string[]): string {
  return segments.map((segment) => `/${encodeURIComponent(segment.replaceAll('~', '~0').replaceAll('/', '~1'))}`).join('');
}

type Responses = Record<string, { content?: Record<string, unknown> }>;

interface DocumentedOperation {
  responses: Responses;
}

function operationOf(method: string, path: string): DocumentedOperation | undefined {
  const paths = document.paths as Record<string, Record<string, DocumentedOperation>>;
  return paths[path]?.[method.toLowerCase()];
}

function validatorFor(path: string, method: string, status: string, mediaType: string): ValidateFunction {
  const key = `${method} ${path} ${status} ${mediaType}`;
  let validate = validators.get(key);
  if (!validate) {
    validate = ajv.compile({ $ref: `${DOCUMENT_ID}#${pointer('paths', path, method.toLowerCase(), 'responses', status, 'content', mediaType, 'schema')}` });
    validators.set(key, validate);
  }
  return validate;
}

export interface ObservedResponse {
  method: string;
  /** The path the request went to (`/api/contacts/con_1`), without the query. */
  path: string;
  status: number;
  contentType: string | null;
  /** The raw body text. */
  body: string;
  /** Response header, by name in any case; undefined when absent. */
  header: (name: string) => string | undefined;
}

const RATE_LIMIT_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'] as const;

/**
 * Throws, naming the route, status and what differs, unless the description
 * documents this response. Paths no route matches (the fallback's 404 and
 * 405) are not operations of the document and pass.
 */
export function assertDocumented(response: ObservedResponse): void {
  const match = matchRoute(response.method, response.path, ROUTES);
  if (match.kind !== 'route') return;
  const { method, path } = match.route;
  const where = `${method} ${path} answered ${response.status}`;
  const operation = operationOf(method, path);
  if (!operation) throw new Error(`${method} ${path} is not in docs/openapi.json: run npm run openapi`);
  const documented = operation.responses[String(response.status)];
  if (!documented)
    throw new Error(
      `${where}, which docs/openapi.json does not document for it (${Object.keys(operation.responses).join(', ')}): ${response.body.slice(0, 300)}`,
    );
  // A keyed route's answer carries the rate-limit headers once the key has been counted: not on answers given before that.
  if (match.route.auth === 'key' && !UNCOUNTED_STATUSES.includes(response.status)) {
    const missing = RATE_LIMIT_HEADERS.filter((name) => !/^\d+$/.test(response.header(name) ?? ''));
    if (missing.length > 0)
      throw new Error(`${where} without ${missing.join(', ')} (or not a whole number), which docs/openapi.json promises on keyed answers`);
  }
  const mediaType = response.contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  if (!documented.content?.[mediaType]) {
    throw new Error(`${where} as ${mediaType || 'no content type'}, documented as ${Object.keys(documented.content ?? {}).join(', ') || 'no content'}`);
  }
  if (mediaType !== 'application/json') return;
  const validate = validatorFor(path, method, String(response.status), mediaType);
  if (!validate(JSON.parse(response.body))) {
    const problems = ajv.errorsText(validate.errors, { separator: '; ', dataVar: 'body' });
    throw new Error(`${where} with a body that does not match its documented schema: ${problems}\n${response.body.slice(0, 500)}`);
  }
}
