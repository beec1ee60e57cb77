import { defineArea, SEND_ERRORS, SENDING } from '#shared/http/contract.ts';
import { emailSendBody, emailSendResultReply } from '#shared/schemas/sending.ts';

/**
 * Lambda takes at most 6 MB per synchronous invocation, the API Gateway event
 * around the body included; the body counts as the event carries it
 * (JSON-escaped: shared/http/middleware.ts), and 256 KB is left for the rest
 * of the event. Base64 (which JSON leaves unescaped) makes this about 4.3 MB
 * of attachments per request, below the 7 MB each allowed: larger files go
 * through POST /api/attachments (a pre-signed S3 upload).
 */
const EMAIL_SEND_MAX_BODY_BYTES = 6 * 1024 * 1024 - 256 * 1024;

export const email = defineArea('email', {
  send: {
    method: 'POST',
    path: '/api/email/send',
    ...SENDING,
    attachments: ['read', 'queue'],
    maxBodyBytes: EMAIL_SEND_MAX_BODY_BYTES,
    request: { body: emailSendBody },
    responses: { 200: emailSendResultReply },
    errors: [...SEND_ERRORS, 'ATTACHMENT_TOO_LARGE', 'ATTACHMENT_NOT_FOUND', 'ATTACHMENT_NOT_UPLOADED', 'ALL_RECIPIENTS_FAILED'],
    summary: 'Send an email to up to 50 recipients',
    description:
      "Each recipient gets a message of its own, carrying `cc` and `bcc`. When the content shows `{{unsubscribeUrl}}` or `{{preferencesUrl}}` (links that act on the address they are delivered to), each `cc` and `bcc` address gets a message of its own instead, addressed to it alone with its own links; these copies are charged, recorded and listed in `successfulEmails`, and leave only when some recipient's message did. A recipient, `cc` or `bcc` address that unsubscribed, bounced or complained is left out and listed in `failedEmails` as `RECIPIENT_SUPPRESSED`; a suppressed `cc` or `bcc` address does not fail the send. `recipientCount` counts `recipients` only. When every recipient fails the answer is 422 `ALL_RECIPIENTS_FAILED` carrying the whole send result. With an `idempotencyKey`, a retry with the same body gets the first answer back (header `Idempotent-Replayed: true`) and nothing is sent again.",
    example: {
      from: 'Acme <hello@example.com>',
      recipients: ['ada@example.com'],
      subject: 'Hello {{firstName}}',
      content: '<p>Hi {{firstName}}</p>',
      variables: { firstName: 'Ada' },
    },
  },
});
