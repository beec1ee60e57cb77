import { defineArea, SEND_ERRORS, sendEndpoint } from '#shared/platform/http/contract.ts';
import { emailBatchBody, emailBatchResultReply, emailSendBody, emailSendResultReply } from '#shared/sending/schema.ts';

/**
 * Lambda takes at most 6 MB per synchronous invocation, the API Gateway event
 * around the body included; the body counts as the event carries it
 * (JSON-escaped: shared/platform/http/middleware.ts), and 256 KB is left for the rest
 * of the event. Base64 (which JSON leaves unescaped) makes this about 4.3 MB
 * of attachments per request, below the 7 MB each allowed: larger files go
 * through POST /api/attachments (a pre-signed S3 upload).
 */
const EMAIL_SEND_MAX_BODY_BYTES = 6 * 1024 * 1024 - 256 * 1024;

/** Both endpoints send mail with attachments, inline or uploaded (read by id), so the same Lambda payload limit binds a batch too. */
const SENDS_ATTACHMENTS = { attachments: ['read', 'queue', 'storeContent'], maxBodyBytes: EMAIL_SEND_MAX_BODY_BYTES } as const;

const sendExample = {
  from: 'Acme <hello@example.com>',
  recipients: ['ada@example.com'],
  subject: 'Hello {{firstName}}',
  content: '<p>Hi {{firstName}}</p>',
  variables: { firstName: 'Ada' },
};

export const email = defineArea('email', {
  send: sendEndpoint({
    path: '/api/email/send',
    body: emailSendBody,
    reply: emailSendResultReply,
    ...SENDS_ATTACHMENTS,
    errors: [...SEND_ERRORS, 'ATTACHMENT_TOO_LARGE', 'ATTACHMENT_NOT_FOUND', 'ATTACHMENT_NOT_UPLOADED', 'ALL_RECIPIENTS_FAILED'],
    summary: 'Send an email to up to 50 recipients',
    description:
      "Each recipient gets a message of its own, carrying `cc` and `bcc`. When the content shows `{{unsubscribeUrl}}` or `{{preferencesUrl}}` (links that act on the address they are delivered to), each `cc` and `bcc` address gets a message of its own instead, addressed to it alone with its own links; these copies are charged, recorded and listed in `successfulEmails`, and leave only when some recipient's message did. A recipient, `cc` or `bcc` address that unsubscribed, bounced or complained is left out and listed in `failedEmails` as `RECIPIENT_SUPPRESSED`; a suppressed `cc` or `bcc` address does not fail the send. `recipientCount` counts `recipients` only. When every recipient fails the answer is 422 `ALL_RECIPIENTS_FAILED` carrying the whole send result. With an `idempotencyKey`, a retry with the same body gets the first answer back (header `Idempotent-Replayed: true`) and nothing is sent again.",
    example: sendExample,
  }),
  batch: sendEndpoint({
    path: '/api/email/batch',
    body: emailBatchBody,
    reply: emailBatchResultReply,
    ...SENDS_ATTACHMENTS,
    // The send errors come per email, in its result; the request as a whole fails only these ways (and validation, auth, rate limit).
    errors: ['ALL_EMAILS_FAILED', 'IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_IN_PROGRESS'],
    summary: 'Send up to 100 emails in one request',
    description:
      'Each item of `emails` is a `/api/email/send` body without `idempotencyKey`, validated and answered on its own, the items read, charged and recorded together and sent up to 10 at a time; `results` has one entry per item, in order, with its `index` and `success` and either the fields of its send result or its error (`error`, `message`, `field` as a path such as `emails[3].recipients[0]`). Each accepted recipient counts against the quota, the whole batch in one charge: when not all fit, items are charged in index order, each all or none, and one that does not fit in what is left fails with `QUOTA_EXCEEDED`. When no item is accepted the answer is 422 `ALL_EMAILS_FAILED` with the same `results`. The batch counts as one request against the rate limit. With an `idempotencyKey`, a retry with the same body gets the first answer back (header `Idempotent-Replayed: true`) and sends nothing again; a batch that failed before any message left gives the key back, so its retry sends every item.',
    example: { emails: [sendExample, { ...sendExample, recipients: ['grace@example.com'], variables: { firstName: 'Grace' } }] },
  }),
});
