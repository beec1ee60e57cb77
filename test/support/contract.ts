/**
 * Every response the suite receives, success or error, must be the one the
 * API description documents for its route and status: test/support/api.ts
 * (raw requests, invoke) and test/support/client.ts (the typed client) run
 * each through `assertDocumented`. So the whole suite is the contract test.
 */
import { UNCOUNTED_STATUSES } from '#shared/platform/http/middleware.ts';
import { isAuthenticated, matchRoute } from '#shared/platform/http/routes.ts';
import { ROUTES } from '#functions/routes.ts';
import { contractValidators, validatorKey } from './contract-validators.ts';

const { mediaTypes, validators } = await contractValidators();

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
  const operation = mediaTypes[path]?.[method.toLowerCase()];
  if (!operation) throw new Error(`${method} ${path} is not in docs/openapi.json: run npm run openapi`);
  const documented = operation[String(response.status)];
  if (!documented)
    throw new Error(`${where}, which docs/openapi.json does not document for it (${Object.keys(operation).join(', ')}): ${response.body.slice(0, 300)}`);
  // A keyed route's answer carries the rate-limit headers once the key has been counted: not on answers given before that.
  if (isAuthenticated(match.route) && !UNCOUNTED_STATUSES.includes(response.status)) {
    const missing = RATE_LIMIT_HEADERS.filter((name) => !/^\d+$/.test(response.header(name) ?? ''));
    if (missing.length > 0)
      throw new Error(`${where} without ${missing.join(', ')} (or not a whole number), which docs/openapi.json promises on keyed answers`);
  }
  const mediaType = response.contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  if (!documented.includes(mediaType)) {
    throw new Error(`${where} as ${mediaType || 'no content type'}, documented as ${documented.join(', ') || 'no content'}`);
  }
  if (mediaType !== 'application/json') return;
  const validate = validators[validatorKey(path, method, String(response.status))];
  if (!validate) throw new Error(`${where} as JSON, which docs/openapi.json documents without a schema`);
  if (!validate(JSON.parse(response.body))) {
    const problems = (validate.errors ?? []).map((error) => `body${error.instancePath} ${error.message}`).join('; ');
    throw new Error(`${where} with a body that does not match its documented schema: ${problems}\n${response.body.slice(0, 500)}`);
  }
}
