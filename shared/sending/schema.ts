import * as v from 'valibot';
import { PRODUCT_NAME } from '#shared/platform/product.ts';
import { RENDER_LIMITS } from '#shared/platform/templating/render-limits.ts';
import { emailAddress, fieldRule, headerText, requiredText, strictObject, templateVariables } from '#shared/platform/schema/common.ts';
import { ATTACHMENT_LIMITS, sendAttachment } from '#shared/attachments/schema.ts';
import { count } from '#shared/platform/schema/replies.ts';

/** Limits of the send endpoints (docs/api.md, "Sending email"); SES's own are noted where they bind. */
export const SEND_LIMITS = {
  recipients: 50,
  cc: 50,
  bcc: 50,
  /** SES: 50 addresses per message, To, Cc and Bcc together. */
  destinationsPerMessage: 50,
  ...ATTACHMENT_LIMITS,
  /** RFC 5322's line limit; a longer subject would be folded by SES anyway. */
  subject: 998,
  content: RENDER_LIMITS.parse,
  /** `Name <address>`: a 254-character address and a generous name. */
  mailbox: 320,
  idempotencyKey: 256,
  /** Emails per POST /api/email/batch, as Resend's batch takes. */
  batchEmails: 100,
  appName: 100,
  otpCode: 12,
  /** A week: an OTP that lives longer is not one-time in any useful sense. */
  expiresInMinutes: 10_080,
} as const;

/** `ann@example.com` or `Ann <ann@example.com>`; the address is checked when the mailbox is parsed. */
export const mailbox = headerText(SEND_LIMITS.mailbox);

function addressList(max: number) {
  return v.pipe(v.array(emailAddress), v.maxLength(max, `must have at most ${max} addresses`));
}

export const subject = headerText(SEND_LIMITS.subject);
export const content = v.pipe(v.string(), v.nonEmpty(), v.maxLength(SEND_LIMITS.content, `must be at most ${SEND_LIMITS.content} characters`));
const templateId = requiredText(64);
const variables = v.optional(templateVariables, {});
const idempotencyKey = v.optional(
  v.pipe(
    v.string(),
    v.nonEmpty(),
    v.maxLength(SEND_LIMITS.idempotencyKey, `must be at most ${SEND_LIMITS.idempotencyKey} characters`),
    v.regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces'),
  ),
);

type ContentFields = { content?: string; templateId?: string; subject?: string } & Record<string, unknown>;

/** Fields that take `content` or a `templateId` (sends, broadcasts). */
type ContentOrTemplateFields = { content?: string | undefined; templateId?: string | undefined } & Record<string, unknown>;

/** `content` and `templateId` are not both given (reported on `templateId`). */
export const notBothContentAndTemplate = <T extends ContentOrTemplateFields>() =>
  fieldRule<T>('templateId', (input) => input.content === undefined || input.templateId === undefined, 'Give content or templateId, not both');

/** `content` is given unless a `templateId` is. */
export const contentUnlessTemplate = <T extends ContentOrTemplateFields>() =>
  fieldRule<T>('content', (input) => input.content !== undefined || input.templateId !== undefined, 'is required when templateId is absent');

/**
 * `content` or `templateId`, not both, and `subject` unless the template gives
 * one: rules across fields, checked once the fields themselves are valid,
 * with the code and `field` of a missing or contradictory field. JSON Schema
 * cannot state them, so the description carries them into the API description.
 */
function contentOrTemplate<T extends ContentFields>(description: string) {
  return [
    v.description<T, string>(description),
    notBothContentAndTemplate<T>(),
    contentUnlessTemplate<T>(),
    fieldRule<T>('subject', (input) => input.templateId !== undefined || input.subject !== undefined, 'is required'),
  ] as const;
}

/** Open and click tracking (docs/api.md, "Tracking"): off unless asked for. */
export const tracking = v.optional(
  v.pipe(
    strictObject({ opens: v.optional(v.boolean(), false), clicks: v.optional(v.boolean(), false) }),
    v.description('Opens (a tracking pixel) and clicks (links rewritten through SES) to track; each false by default.'),
  ),
);

const CONTENT_OR_TEMPLATE = 'Give `content` with a `subject`, or a `templateId` (its subject is used unless `subject` replaces it); not both.';

const emailSendFields = strictObject({
  from: mailbox,
  recipients: v.pipe(v.array(emailAddress), v.nonEmpty(), v.maxLength(SEND_LIMITS.recipients, `must have at most ${SEND_LIMITS.recipients} addresses`)),
  subject: v.optional(subject),
  content: v.optional(content),
  templateId: v.optional(templateId),
  variables,
  cc: v.optional(addressList(SEND_LIMITS.cc), []),
  bcc: v.optional(addressList(SEND_LIMITS.bcc), []),
  replyTo: v.optional(mailbox),
  attachments: v.optional(
    v.pipe(v.array(sendAttachment), v.maxLength(SEND_LIMITS.attachments, `must have at most ${SEND_LIMITS.attachments} attachments`)),
    [],
  ),
  tracking,
  idempotencyKey,
});

/**
 * POST /api/email/send. The room cc and bcc share depends on the rendered
 * content (whether it carries recipient-bound links), known only once a
 * template is read, so the domain checks it (shared/sending/service.ts
 * `checkDestinations`); the description states it.
 */
const EMAIL_SEND_RULES = `${CONTENT_OR_TEMPLATE} \`cc\` and \`bcc\` ride on every recipient's message, so together they hold at most ${SEND_LIMITS.destinationsPerMessage - 1} addresses (SES takes ${SEND_LIMITS.destinationsPerMessage} per message); when the content carries \`{{unsubscribeUrl}}\` or \`{{preferencesUrl}}\` each gets a message of its own and each list may hold ${SEND_LIMITS.cc}.`;
export const emailSendBody = v.pipe(emailSendFields, ...contentOrTemplate<v.InferOutput<typeof emailSendFields>>(EMAIL_SEND_RULES));
export type EmailSendInput = v.InferOutput<typeof emailSendBody>;

// The batch's own key covers its items (shared/sending/batch.ts): an item with one of its own is refused as an unknown field.
const { idempotencyKey: _itemKey, ...emailBatchItemEntries } = emailSendFields.entries;
const emailBatchItemFields = strictObject(emailBatchItemEntries);

/** One email of POST /api/email/batch: a send body without `idempotencyKey`. */
export const emailBatchItem = v.pipe(
  emailBatchItemFields,
  ...contentOrTemplate<v.InferOutput<typeof emailBatchItemFields>>(EMAIL_SEND_RULES),
  v.metadata({ title: 'Batch email' }),
);

/**
 * Each item is validated on its own by the domain, so a bad one fails alone
 * (its error in its result) instead of failing the request. Asked without an
 * input (only the API description's conversion does), it answers the item's
 * schema, so the document shows what an item must be.
 */
const batchEmailSlot = v.lazy((input) => (input === undefined ? emailBatchItem : v.unknown()));

/** POST /api/email/batch: 1 to 100 emails and an optional key for the whole batch. */
export const emailBatchBody = strictObject({
  emails: v.pipe(
    v.array(batchEmailSlot),
    v.minLength(1, `must hold 1 to ${SEND_LIMITS.batchEmails} emails`),
    v.maxLength(SEND_LIMITS.batchEmails, `must hold 1 to ${SEND_LIMITS.batchEmails} emails`),
  ),
  idempotencyKey,
});
export type EmailBatchInput = v.InferOutput<typeof emailBatchBody>;

const otpSendFields = strictObject({
  to: v.optional(emailAddress),
  email: v.optional(emailAddress),
  from: mailbox,
  code: v.pipe(
    v.string(),
    v.trim(),
    v.nonEmpty(),
    v.maxLength(SEND_LIMITS.otpCode, `must be at most ${SEND_LIMITS.otpCode} characters`),
    v.regex(/^[A-Za-z0-9-]+$/, 'must be letters, digits and -'),
  ),
  appName: v.optional(headerText(SEND_LIMITS.appName), PRODUCT_NAME),
  expiresInMinutes: v.optional(
    v.pipe(
      v.number(),
      v.integer('must be a whole number of minutes'),
      v.minValue(1, `must be from 1 to ${SEND_LIMITS.expiresInMinutes}`),
      v.maxValue(SEND_LIMITS.expiresInMinutes, `must be from 1 to ${SEND_LIMITS.expiresInMinutes}`),
    ),
  ),
  subject: v.optional(subject),
  templateId: v.optional(templateId),
  idempotencyKey,
});

/** POST /api/otp/send and /api/otp: `to`, or its alias `email`. */
export const otpSendBody = v.pipe(
  otpSendFields,
  v.description('Give the recipient as `to` or as `email` (its alias); both only when they are the same address.'),
  fieldRule<v.InferOutput<typeof otpSendFields>>(
    'email',
    (input) => input.to === undefined || input.email === undefined || input.to === input.email,
    'Give the recipient as to or as email, not two different addresses',
  ),
  fieldRule<v.InferOutput<typeof otpSendFields>>(
    'to',
    (input) => input.to !== undefined || input.email !== undefined,
    'is required (email is accepted as its alias)',
  ),
);
export type OtpSendInput = v.InferOutput<typeof otpSendBody>;

const transactionalSendFields = strictObject({
  to: emailAddress,
  from: mailbox,
  subject: v.optional(subject),
  content: v.optional(content),
  templateId: v.optional(templateId),
  variables,
  replyTo: v.optional(mailbox),
  tracking,
  idempotencyKey,
});

/** POST /api/transactional/send. */
export const transactionalSendBody = v.pipe(transactionalSendFields, ...contentOrTemplate<v.InferOutput<typeof transactionalSendFields>>(CONTENT_OR_TEMPLATE));
export type TransactionalSendInput = v.InferOutput<typeof transactionalSendBody>;

// Replies.

/** Email send result (docs/api.md, "Sending email"); a send where every recipient failed is this in a 422 envelope. */
export const emailSendResultReply = v.strictObject({
  success: v.literal(true),
  message: v.string(),
  successfulEmails: v.array(
    v.strictObject({
      recipient: v.string(),
      trackingId: v.string(),
      /** Present on a recipient whose message SES throttled: it waits on the retry queue and is sent later. */
      queued: v.optional(v.literal(true)),
    }),
  ),
  failedEmails: v.array(v.strictObject({ recipient: v.string(), error: v.string(), message: v.string() })),
  recipientCount: count,
  emailsRemaining: count,
});

const { message, successfulEmails, failedEmails, recipientCount } = emailSendResultReply.entries;

/**
 * One email's outcome in a batch, at its `index`: its send result, or its
 * error as the send's envelope would carry it (`field` a path into the
 * batch, a send where every recipient failed with that send's result).
 */
export const emailBatchItemResult = v.variant('success', [
  v.strictObject({ index: count, success: v.literal(true), message, successfulEmails, failedEmails, recipientCount }),
  v.strictObject({
    index: count,
    success: v.literal(false),
    error: v.string(),
    message,
    field: v.optional(v.string()),
    retryAfter: v.optional(count),
    successfulEmails: v.optional(successfulEmails),
    failedEmails: v.optional(failedEmails),
    recipientCount: v.optional(recipientCount),
  }),
]);

/** POST /api/email/batch: one result per email, in order; when none was accepted this is in a 422 ALL_EMAILS_FAILED envelope. */
export const emailBatchResultReply = v.strictObject({
  success: v.literal(true),
  results: v.array(emailBatchItemResult),
  emailsRemaining: count,
});

/** OTP and transactional sends. */
export const singleSendResultReply = v.strictObject({
  success: v.literal(true),
  message: v.string(),
  trackingId: v.string(),
  emailId: v.string(),
  queued: v.boolean(),
});
