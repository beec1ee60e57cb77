/**
 * One example error envelope per code, for the error responses of the API
 * description. Without them a reader (and Swagger UI, which makes a sample
 * from the first value of the `ErrorCode` enum) sees codes the status never
 * has. Keyed by every code, so a new code does not compile without one.
 */
import { RECIPIENT_SUPPRESSED } from '#shared/sending/service.ts';
import { type ErrorCode, notFound, type PostlaneError } from '#shared/platform/errors.ts';
import { invalidCode, lastAdmin, memberExists } from '#shared/accounts/people-errors.ts';
import { complaintConfirmationRequired } from '#shared/suppressions/errors.ts';

/** Where an operation's validation examples point: fields of its own request. */
export interface FieldHints {
  /** Its first required body (or query) field. */
  required?: string;
  /** Its first field that holds an address. */
  address?: string;
  /** Its first field of any kind. */
  any?: string;
}

interface Example {
  message: string;
  field?: string;
  retryAfter?: number;
  /** Further envelope fields: a failed send carries its whole result. */
  fields?: Record<string, unknown>;
}

/** The envelope of an error as the domain throws it, so its message is written once. */
const thrown = (error: PostlaneError): Example => ({ message: error.message, ...error.details });

const SUPPRESSED = RECIPIENT_SUPPRESSED.message;

const failedSend = (error: string, message: string) => ({
  successfulEmails: [],
  failedEmails: [{ recipient: 'ada@example.com', error, message }],
  recipientCount: 1,
  emailsRemaining: 49_988,
});

const EXAMPLES: Record<ErrorCode, Example | ((hints: FieldHints) => Example)> = {
  UNAUTHORIZED: { message: 'Missing or invalid API key' },
  FORBIDDEN: { message: 'This API key may only send email' },
  RATE_LIMIT_EXCEEDED: { message: 'Rate limit exceeded; retry after 1 second', retryAfter: 1 },
  INVALID_JSON: { message: 'Request body is not valid JSON' },
  UNSUPPORTED_MEDIA_TYPE: { message: 'Request bodies must be application/json' },
  PAYLOAD_TOO_LARGE: { message: 'Request body is too large' },
  MISSING_REQUIRED_FIELD: ({ required = 'email' }) => ({ message: `${required} is required`, field: required }),
  INVALID_EMAIL: ({ address = 'email' }) => ({ message: `${address} must be a valid email address`, field: address }),
  VALIDATION_ERROR: ({ any = 'limit' }) => ({ message: `${any}: invalid value`, field: any }),
  NOT_FOUND: { message: 'No route for GET /api/nothing' },
  METHOD_NOT_ALLOWED: { message: 'PUT is not allowed here; use GET, PATCH, DELETE' },
  CONTACT_NOT_FOUND: thrown(notFound.contact()),
  AUDIENCE_NOT_FOUND: thrown(notFound.audience()),
  TEMPLATE_NOT_FOUND: thrown(notFound.template()),
  FORM_NOT_FOUND: thrown(notFound.form()),
  EMAIL_NOT_FOUND: thrown(notFound.email()),
  EMAIL_CONTENT_NOT_FOUND: thrown(notFound.emailContent()),
  DOMAIN_NOT_FOUND: thrown(notFound.domain()),
  API_KEY_NOT_FOUND: thrown(notFound.apiKey()),
  SUPPRESSION_NOT_FOUND: thrown(notFound.suppression()),
  COMPLAINT_CONFIRMATION_REQUIRED: thrown(complaintConfirmationRequired()),
  ATTACHMENT_NOT_FOUND: thrown(notFound.attachment('attachments[0].id')),
  ATTACHMENT_NOT_UPLOADED: { message: 'Nothing has been uploaded for attachments[0].id yet; PUT the file to its uploadUrl first', field: 'attachments[0].id' },
  CONTACT_EXISTS: { message: 'A contact with this email already exists in this audience', field: 'email' },
  SLUG_TAKEN: { message: 'This slug is already used by another form', field: 'slug' },
  DOMAIN_EXISTS: { message: 'The domain mail.example.com is already added to this account', field: 'domain' },
  DOMAIN_LIMIT_REACHED: { message: 'An account has at most 50 domains; delete one to add another' },
  CONFLICT: { message: 'The resource changed concurrently; retry the request' },
  SENDER_NOT_VERIFIED: { message: 'The sender domain example.org is not a verified domain of this account', field: 'from' },
  QUOTA_EXCEEDED: { message: 'Monthly email quota exceeded' },
  ATTACHMENT_TOO_LARGE: { message: 'attachments[0] is larger than 7 MB', field: 'attachments[0]' },
  RECIPIENT_SUPPRESSED: { message: SUPPRESSED, field: 'to' },
  MESSAGE_REJECTED: { message: 'SES rejected the message: Email address is not verified' },
  ALL_RECIPIENTS_FAILED: { message: 'No recipient could be sent to', fields: failedSend('RECIPIENT_SUPPRESSED', SUPPRESSED) },
  ALL_EMAILS_FAILED: {
    message: 'None of the 2 emails of the batch was sent',
    fields: {
      results: [
        {
          index: 0,
          success: false,
          error: 'SENDER_NOT_VERIFIED',
          message: 'The sender domain example.org is not a verified domain of this account',
          field: 'emails[0].from',
        },
        {
          index: 1,
          success: false,
          error: 'INVALID_EMAIL',
          message: 'emails[1].recipients[0] must be a valid email address',
          field: 'emails[1].recipients[0]',
        },
      ],
      emailsRemaining: 49_988,
    },
  },
  IDEMPOTENCY_KEY_REUSED: { message: 'This idempotency key was already used with a different request body', field: 'idempotencyKey' },
  IDEMPOTENCY_IN_PROGRESS: { message: 'A request with this idempotency key is still in progress; retry shortly', field: 'idempotencyKey', retryAfter: 1 },
  SES_THROTTLED: { message: 'The sending rate of the SES account was exceeded; send again later' },
  SENDING_PAUSED: { message: 'Sending is paused for the SES account of this deployment' },
  INVALID_CODE: thrown(invalidCode()),
  ACCOUNT_NOT_FOUND: thrown(notFound.account()),
  MEMBER_NOT_FOUND: thrown(notFound.member()),
  MEMBER_EXISTS: thrown(memberExists()),
  LAST_ADMIN: thrown(lastAdmin()),
  WEBHOOK_NOT_FOUND: thrown(notFound.webhook()),
  DELIVERY_NOT_FOUND: thrown(notFound.delivery()),
  BROADCAST_NOT_FOUND: thrown(notFound.broadcast()),
  BROADCAST_NOT_EDITABLE: { message: 'The broadcast is sending; only a draft or scheduled broadcast can be changed' },
  INVALID_WEBHOOK_URL: { message: 'url must be an https URL whose host resolves to public addresses', field: 'url' },
  WEBHOOK_LIMIT_REACHED: { message: 'This account has the most webhook endpoints it may have (20)' },
  EXPORT_NOT_FOUND: thrown(notFound.audienceExport()),
  INTERNAL_ERROR: { message: 'An unexpected error occurred; retry the request' },
};

type ExampleObject = { summary: string; value: Record<string, unknown> };

function exampleOf(code: ErrorCode, hints: FieldHints): ExampleObject {
  const entry = EXAMPLES[code];
  const { message, field, retryAfter, fields } = typeof entry === 'function' ? entry(hints) : entry;
  return {
    summary: code,
    value: { ...fields, success: false, error: code, message, ...(field === undefined ? {} : { field }), ...(retryAfter === undefined ? {} : { retryAfter }) },
  };
}

/**
 * The named examples of one error status, one per code, as an OpenAPI
 * `examples` map. Codes whose example names no field of the request are
 * references into `components.examples` (see sharedErrorExamples), written once.
 * `errorExamples(['CONTACT_NOT_FOUND'], {})` gives `{CONTACT_NOT_FOUND: {$ref: '#/components/examples/CONTACT_NOT_FOUND'}}`.
 */
export function errorExamples(codes: readonly ErrorCode[], hints: FieldHints): Record<string, ExampleObject | { $ref: string }> {
  return Object.fromEntries(
    codes.map((code) => [code, typeof EXAMPLES[code] === 'function' ? exampleOf(code, hints) : { $ref: `#/components/examples/${code}` }]),
  );
}

/** `components.examples`: the examples errorExamples refers to, for the given codes. */
export function sharedErrorExamples(codes: readonly ErrorCode[]): Record<string, ExampleObject> {
  return Object.fromEntries(codes.filter((code) => typeof EXAMPLES[code] !== 'function').map((code) => [code, exampleOf(code, {})]));
}
