import { PostlaneError, type ErrorCode } from '#shared/platform/errors.ts';
import type { Reply } from './reply.ts';

/** The one place where error codes become HTTP statuses (docs/api.md, "Errors"). */
const STATUS_BY_CODE: Record<ErrorCode, number> = {
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  RATE_LIMIT_EXCEEDED: 429,
  INVALID_JSON: 400,
  UNSUPPORTED_MEDIA_TYPE: 415,
  PAYLOAD_TOO_LARGE: 413,
  MISSING_REQUIRED_FIELD: 400,
  INVALID_EMAIL: 422,
  VALIDATION_ERROR: 422,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONTACT_NOT_FOUND: 404,
  AUDIENCE_NOT_FOUND: 404,
  TEMPLATE_NOT_FOUND: 404,
  FORM_NOT_FOUND: 404,
  EMAIL_NOT_FOUND: 404,
  EMAIL_CONTENT_NOT_FOUND: 404,
  DOMAIN_NOT_FOUND: 404,
  ATTACHMENT_NOT_FOUND: 404,
  WEBHOOK_NOT_FOUND: 404,
  DELIVERY_NOT_FOUND: 404,
  BROADCAST_NOT_FOUND: 404,
  API_KEY_NOT_FOUND: 404,
  SUPPRESSION_NOT_FOUND: 404,
  COMPLAINT_CONFIRMATION_REQUIRED: 409,
  BROADCAST_NOT_EDITABLE: 409,
  INVALID_WEBHOOK_URL: 422,
  WEBHOOK_LIMIT_REACHED: 409,
  ATTACHMENT_NOT_UPLOADED: 409,
  CONTACT_EXISTS: 409,
  SLUG_TAKEN: 409,
  DOMAIN_EXISTS: 409,
  DOMAIN_LIMIT_REACHED: 409,
  EXPORT_NOT_FOUND: 404,
  CONFLICT: 409,
  SENDER_NOT_VERIFIED: 403,
  QUOTA_EXCEEDED: 403,
  ATTACHMENT_TOO_LARGE: 400,
  RECIPIENT_SUPPRESSED: 422,
  MESSAGE_REJECTED: 422,
  ALL_RECIPIENTS_FAILED: 422,
  ALL_EMAILS_FAILED: 422,
  IDEMPOTENCY_KEY_REUSED: 422,
  IDEMPOTENCY_IN_PROGRESS: 409,
  SES_THROTTLED: 503,
  SENDING_PAUSED: 503,
  INVALID_CODE: 401,
  ACCOUNT_NOT_FOUND: 404,
  MEMBER_NOT_FOUND: 404,
  MEMBER_EXISTS: 409,
  LAST_ADMIN: 409,
  INTERNAL_ERROR: 500,
};

export function statusOf(code: ErrorCode): number {
  return STATUS_BY_CODE[code];
}

/** The error envelope for a known failure: `{success: false, error, message, field?, retryAfter?}`. */
export function errorReply(error: PostlaneError): Reply {
  const { field, retryAfter, fields } = error.details;
  return {
    status: statusOf(error.code),
    body: {
      ...fields,
      success: false,
      error: error.code,
      message: error.message,
      ...(field === undefined ? {} : { field }),
      ...(retryAfter === undefined ? {} : { retryAfter }),
    },
    ...(retryAfter === undefined ? {} : { headers: { 'Retry-After': String(retryAfter) } }),
  };
}

/** Anything unexpected: a fixed message, so no stack, key or other account's data reaches the client. */
export const internalErrorReply: Reply = {
  status: 500,
  body: { success: false, error: 'INTERNAL_ERROR', message: 'An unexpected error occurred; retry the request' },
};

/**
 * Our codes for the http errors of Middy's body parsers, by status: their
 * statuses and messages are Middy's, never our answer. @middy/http-json-body-parser
 * answers JSON it cannot parse with 415 (422 in other versions): a bad body, not a bad media type.
 */
const MIDDY_ERRORS: Record<number, PostlaneError> = {
  400: new PostlaneError('INVALID_JSON', 'Request body is not valid JSON'),
  413: new PostlaneError('PAYLOAD_TOO_LARGE', 'Request body is too large'),
  415: new PostlaneError('UNSUPPORTED_MEDIA_TYPE', 'Request bodies must be application/json'),
  422: new PostlaneError('INVALID_JSON', 'Request body is not valid JSON'),
};
const MALFORMED = /malformed/i;

function fromMiddy(error: Error & { statusCode?: unknown }): PostlaneError | undefined {
  const source = (error.cause as { package?: unknown } | undefined)?.package;
  if (typeof source !== 'string' || !source.startsWith('@middy/') || typeof error.statusCode !== 'number') return undefined;
  return MALFORMED.test(error.message) ? MIDDY_ERRORS[400] : MIDDY_ERRORS[error.statusCode];
}

/** A failure the client may be told about: ours, or a Middy middleware's in our terms; `undefined` for anything unexpected. */
export function knownError(error: unknown): PostlaneError | undefined {
  if (error instanceof PostlaneError) return error;
  return error instanceof Error ? fromMiddy(error) : undefined;
}

export function replyForError(error: unknown): Reply {
  const known = knownError(error);
  return known ? errorReply(known) : internalErrorReply;
}
