/**
 * The middlewares every endpoint runs, each a small factory returning
 * `{before, after, onError}`. shared/platform/http/endpoint.ts chains them in order.
 */
import type middy from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { PostlaneError } from '#shared/platform/errors.ts';
import { log } from '#shared/platform/log.ts';
import type { BodyFormat } from './body-format.ts';
import { corsHeaders } from './cors.ts';
import { knownError, replyForError } from './error-envelope.ts';
import { RateLimitExceeded, rateHeaders, type RateWindow } from './rate-headers.ts';
import type { Reply } from './reply.ts';

/** Per-invocation state the middlewares hand to each other and to the endpoint. */
export interface RequestState {
  now: Date;
  /** The authenticated caller, set by the authentication middleware of the route's factory (shared/accounts/endpoint.ts). */
  principal?: unknown;
  rateWindow?: RateWindow;
  body?: unknown;
}

export interface EndpointContext extends Context {
  postlane: RequestState;
}

export type Request = middy.Request<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 | Reply, Error, EndpointContext>;
export type Middleware = middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 | Reply, Error, EndpointContext>;

function toResult(reply: Reply, state: RequestState): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode: reply.status,
    headers: { 'Content-Type': 'application/json; charset=utf-8', ...rateHeaders(state.rateWindow), ...reply.headers },
    body: typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body),
    ...(reply.cookies && reply.cookies.length > 0 ? { cookies: reply.cookies } : {}),
  };
}

/**
 * What every answer gets last: the CORS headers on a `cors` route, and no body
 * for a HEAD, which runs the GET's handler for its status and headers (RFC 9110).
 */
function finish(event: APIGatewayProxyEventV2, result: APIGatewayProxyStructuredResultV2, cors: boolean): APIGatewayProxyStructuredResultV2 {
  const headers = cors ? { ...result.headers, ...corsHeaders(event) } : result.headers;
  return { ...result, ...(headers ? { headers } : {}), ...(event.requestContext?.http?.method === 'HEAD' ? { body: '' } : {}) };
}

/**
 * Serialises replies and turns every error into the envelope; used first so it
 * wraps all the others. `cors`: the route's answers carry the CORS headers.
 */
export function httpResponse(options: { cors?: boolean } = {}): Middleware {
  const cors = options.cors ?? false;
  return {
    before: (request) => {
      request.context.postlane = { now: new Date() };
    },
    after: (request) => {
      request.response = finish(request.event, toResult(request.response as Reply, request.context.postlane), cors);
    },
    onError: (request) => {
      const state = request.context.postlane ?? { now: new Date() };
      const error = request.error;
      if (error instanceof RateLimitExceeded) state.rateWindow = error.window;
      if (!knownError(error)) {
        // The request's log context adds requestId and accountId; the client gets only the fixed message.
        log.error('unhandled error', { route: request.event.routeKey, error });
      }
      request.response = finish(request.event, toResult(replyForError(error), state), cors);
    },
  };
}

/**
 * Answers of a keyed route given before the request is counted, so
 * without the rate-limit headers: no or an unknown key (401), a disabled key
 * or one without the route's permission (403, shared/accounts/endpoint.ts), and a body
 * over API Gateway's limit (413, before any function runs).
 */
export const UNCOUNTED_STATUSES: readonly number[] = [401, 403, 413];

const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json$/i;
export const FORM_MEDIA_TYPE = 'application/x-www-form-urlencoded';
/** The content type `bodyMediaType` leaves on a JSON request: the one @middy/http-json-body-parser parses. */
const CANONICAL_JSON = 'application/json';

/** `application/json; charset=utf-8` gives `application/json`. */
export function mediaTypeOf(contentType: string | undefined): string | undefined {
  return contentType?.split(';')[0]?.trim().toLowerCase();
}

/**
 * 415 for a media type the route does not take; then the header holds the bare
 * media type, so the parsers after it each see theirs.
 * Why no package: Middy's JSON parser matches case-sensitively and refuses a
 * missing type (accepted for JSON bodies), and each Middy parser refuses the other's type.
 */
function bodyMediaType(formats: readonly BodyFormat[]): Middleware {
  return {
    before: (request) => {
      const headers = (request.event.headers ??= {});
      const mediaType = mediaTypeOf(headers['content-type']);
      const isForm = mediaType === FORM_MEDIA_TYPE && formats.includes('form');
      if (mediaType && !isForm && !JSON_MEDIA_TYPE.test(mediaType)) {
        throw new PostlaneError(
          'UNSUPPORTED_MEDIA_TYPE',
          formats.includes('form') ? 'Request bodies must be application/json or application/x-www-form-urlencoded' : 'Request bodies must be application/json',
        );
      }
      headers['content-type'] = isForm ? FORM_MEDIA_TYPE : CANONICAL_JSON;
    },
  };
}

/**
 * The body's size as the event carries it, which is what Lambda's 6 MB
 * payload limit counts: base64 as is, text JSON-escaped (a `"` or `\\` takes
 * two bytes, a control character six). A route's limit counted this way
 * leaves its headroom below 6 MB for the rest of the event whatever the
 * body holds, so a body within the limit always reaches the function.
 */
function carriedBodyBytes(event: { body?: string; isBase64Encoded?: boolean }): number {
  if (!event.body) return 0;
  return event.isBase64Encoded ? event.body.length : Buffer.byteLength(JSON.stringify(event.body)) - 2;
}

/**
 * The body's bytes: 415 for a Content-Encoding, 413 past `maxBytes`, 400
 * INVALID_JSON for bytes that are not UTF-8; then `event.body` is the text.
 * Why no package: no Middy middleware limits or refuses request bodies by size or
 * encoding, and its parsers decode with Buffer#toString, which turns bad bytes into U+FFFD.
 */
function bodyBytes(maxBytes: number): Middleware {
  return {
    before: (request) => {
      const { event } = request;
      // Neither API Gateway nor this function inflates a compressed body: read as JSON it would be noise.
      const encoding = event.headers?.['content-encoding']?.trim().toLowerCase();
      if (encoding && encoding !== 'identity') {
        throw new PostlaneError('UNSUPPORTED_MEDIA_TYPE', `Content-Encoding ${encoding} is not supported; send the body uncompressed`);
      }
      if (carriedBodyBytes(event) > maxBytes) {
        throw new PostlaneError('PAYLOAD_TOO_LARGE', `Request body exceeds ${maxBytes} bytes (counted as Lambda receives it: JSON-escaped, or base64)`);
      }
      const raw = event.body ? Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8') : Buffer.alloc(0);
      event.body = utf8Text(raw);
      event.isBase64Encoded = false;
    },
  };
}

/**
 * RFC 8259 JSON is UTF-8: bytes that are not would otherwise become U+FFFD and
 * be stored as if the client had sent them. A BOM is kept, so JSON.parse refuses it as before.
 */
function utf8Text(raw: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(raw);
  } catch {
    throw new PostlaneError('INVALID_JSON', 'Request body is not valid UTF-8');
  }
}

/**
 * A form post as an object: repeated names (checkboxes) become arrays.
 * Why no package: @middy/http-urlencode-body-parser drops a `__proto__` field
 * (Object.assign) and fields past the 1,000th, which validation must see to refuse.
 */
function formBody(): Middleware {
  return {
    before: (request) => {
      const { event } = request;
      if (event.headers?.['content-type'] !== FORM_MEDIA_TYPE) return;
      const fields: Record<string, string | string[]> = Object.create(null);
      for (const [name, value] of new URLSearchParams(event.body ?? '')) {
        const existing = fields[name];
        fields[name] = existing === undefined ? value : [...(Array.isArray(existing) ? existing : [existing]), value];
      }
      (event as { body: unknown }).body = { ...fields };
    },
  };
}

/**
 * 400 INVALID_JSON unless the parsed body is an object; it becomes the endpoint's body.
 * Why no package: Middy's JSON parser accepts any JSON value.
 */
function objectBody(): Middleware {
  return {
    before: (request) => {
      const parsed: unknown = request.event.body;
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        throw new PostlaneError('INVALID_JSON', 'Request body must be a JSON object');
      }
      request.context.postlane.body = parsed;
    },
  };
}

/**
 * The middlewares that turn a request body into an object: JSON (parsed by
 * @middy/http-json-body-parser, whose errors error-envelope.ts maps to ours),
 * or a form post where the route takes one. In order: 415 for another media
 * type or a Content-Encoding, 413 past `maxBytes`, 400 INVALID_JSON for bytes
 * that are not UTF-8 or text that is not a JSON object.
 */
export function requestBody(maxBytes: number, formats: readonly BodyFormat[] = ['json']): Middleware[] {
  return [
    bodyMediaType(formats),
    bodyBytes(maxBytes),
    httpJsonBodyParser({ disableContentTypeError: true }) as Middleware,
    ...(formats.includes('form') ? [formBody()] : []),
    objectBody(),
  ];
}
