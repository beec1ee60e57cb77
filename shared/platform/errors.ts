/**
 * Domain failures. They carry a code, never an HTTP status: the edge
 * (shared/platform/http/error-envelope.ts) maps codes to statuses in one place.
 */
export type ErrorCode =
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'RATE_LIMIT_EXCEEDED'
  | 'INVALID_JSON'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'PAYLOAD_TOO_LARGE'
  | 'MISSING_REQUIRED_FIELD'
  | 'INVALID_EMAIL'
  | 'VALIDATION_ERROR'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'CONTACT_NOT_FOUND'
  | 'AUDIENCE_NOT_FOUND'
  | 'TEMPLATE_NOT_FOUND'
  | 'FORM_NOT_FOUND'
  | 'EMAIL_NOT_FOUND'
  | 'EMAIL_CONTENT_NOT_FOUND'
  | 'DOMAIN_NOT_FOUND'
  | 'ATTACHMENT_NOT_FOUND'
  | 'WEBHOOK_NOT_FOUND'
  | 'DELIVERY_NOT_FOUND'
  | 'BROADCAST_NOT_FOUND'
  | 'API_KEY_NOT_FOUND'
  | 'SUPPRESSION_NOT_FOUND'
  | 'COMPLAINT_CONFIRMATION_REQUIRED'
  | 'BROADCAST_NOT_EDITABLE'
  | 'INVALID_WEBHOOK_URL'
  | 'WEBHOOK_LIMIT_REACHED'
  | 'ATTACHMENT_NOT_UPLOADED'
  | 'CONTACT_EXISTS'
  | 'SLUG_TAKEN'
  | 'DOMAIN_EXISTS'
  | 'DOMAIN_LIMIT_REACHED'
  | 'EXPORT_NOT_FOUND'
  | 'CONFLICT'
  | 'SENDER_NOT_VERIFIED'
  | 'QUOTA_EXCEEDED'
  | 'ATTACHMENT_TOO_LARGE'
  | 'RECIPIENT_SUPPRESSED'
  | 'MESSAGE_REJECTED'
  | 'ALL_RECIPIENTS_FAILED'
  | 'ALL_EMAILS_FAILED'
  | 'IDEMPOTENCY_KEY_REUSED'
  | 'IDEMPOTENCY_IN_PROGRESS'
  | 'SES_THROTTLED'
  | 'SENDING_PAUSED'
  | 'INVALID_CODE'
  | 'ACCOUNT_NOT_FOUND'
  | 'MEMBER_NOT_FOUND'
  | 'MEMBER_EXISTS'
  | 'LAST_ADMIN'
  | 'INTERNAL_ERROR';

export interface ErrorDetails {
  /** Path into the request, such as `contacts[12].email` or `limit`. */
  field?: string;
  /** Seconds the client should wait before trying again. */
  retryAfter?: number;
  /** Further top-level fields of the envelope: a failed email send carries its whole result. */
  fields?: Record<string, unknown>;
}

export class PostlaneError extends Error {
  override readonly name: string = 'PostlaneError';

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ErrorDetails = {},
  ) {
    super(message);
  }
}

export class NotFoundError extends PostlaneError {
  override readonly name = 'NotFoundError';
}

export class ValidationError extends PostlaneError {
  override readonly name = 'ValidationError';
  constructor(code: 'MISSING_REQUIRED_FIELD' | 'INVALID_EMAIL' | 'VALIDATION_ERROR', message: string, field: string) {
    super(code, message, { field });
  }
}

export class AuthError extends PostlaneError {
  override readonly name = 'AuthError';
}

export class RateLimitError extends PostlaneError {
  override readonly name = 'RateLimitError';
  constructor(message: string, retryAfter: number) {
    super('RATE_LIMIT_EXCEEDED', message, { retryAfter });
  }
}

export class ConflictError extends PostlaneError {
  override readonly name = 'ConflictError';
}

/** Each kind of resource has its own not-found code, and one message whatever the reason (unknown, malformed, other account). */
export const notFound = {
  contact: () => new NotFoundError('CONTACT_NOT_FOUND', 'Contact not found'),
  audience: () => new NotFoundError('AUDIENCE_NOT_FOUND', 'Audience not found'),
  /** `field: 'templateId'` when the id came in a send request's body. */
  template: (details?: ErrorDetails) => new NotFoundError('TEMPLATE_NOT_FOUND', 'Template not found', details),
  form: () => new NotFoundError('FORM_NOT_FOUND', 'Form not found'),
  email: () => new NotFoundError('EMAIL_NOT_FOUND', 'Email not found'),
  /** A known email whose content is not kept: expired, or never stored (a suppressed message, or one sent before content was kept). */
  emailContent: () => new NotFoundError('EMAIL_CONTENT_NOT_FOUND', 'The content of this email is not kept (expired, or never stored)'),
  domain: () => new NotFoundError('DOMAIN_NOT_FOUND', 'Domain not found'),
  /** Always in a send request's body, so always with the `field` that named it. */
  attachment: (field: string) => new NotFoundError('ATTACHMENT_NOT_FOUND', 'Attachment not found', { field }),
  webhook: () => new NotFoundError('WEBHOOK_NOT_FOUND', 'Webhook not found'),
  delivery: () => new NotFoundError('DELIVERY_NOT_FOUND', 'Delivery not found'),
  broadcast: () => new NotFoundError('BROADCAST_NOT_FOUND', 'Broadcast not found'),
  /** An export of another audience, or past its day, answers like an unknown one. */
  audienceExport: () => new NotFoundError('EXPORT_NOT_FOUND', 'Export not found'),
  member: () => new NotFoundError('MEMBER_NOT_FOUND', 'Member not found'),
  /** An account the signed-in person is no member of, exactly like one that does not exist. */
  account: () => new NotFoundError('ACCOUNT_NOT_FOUND', 'Account not found', { field: 'accountId' }),
  apiKey: () => new NotFoundError('API_KEY_NOT_FOUND', 'API key not found'),
  /** An address the account's suppression list does not hold. */
  suppression: () => new NotFoundError('SUPPRESSION_NOT_FOUND', 'This address is not on the suppression list'),
} as const;
