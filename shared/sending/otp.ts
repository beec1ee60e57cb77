import { DEFAULT_OTP_SUBJECT, DEFAULT_OTP_TEMPLATE } from './otp-template.ts';
import type { OtpSendInput } from './schema.ts';
import { overlappingClaim, type Idempotent } from './idempotency.ts';
import { admitOtp } from './otp-limit.ts';
import { deliverOne, parseMailboxField, SUPPRESSED_FOR_TRANSACTIONAL, type MessageContent, type SendContext, type SingleSendResponse } from './service.ts';

/** `to`, or its alias `email`: the schema (shared/sending/schema.ts `otpSendBody`) requires one, and the same address if both. */
function recipientOf(input: OtpSendInput): { to: string; field: 'to' | 'email' } {
  if (input.to !== undefined) return { to: input.to, field: 'to' };
  if (input.email === undefined) throw new Error('to or email: the OTP schema checks this before the domain runs');
  return { to: input.email, field: 'email' };
}

/**
 * POST /api/otp/send (and /api/otp): the code in the default Portuguese
 * template or the account's `templateId`, which receives `code`, `appName` and
 * `expiresInMinutes`. Counted in the recipient's 5-minute window; with an
 * idempotency key, sent at most once.
 */
export async function sendOtp(input: OtpSendInput, context: SendContext): Promise<Idempotent<SingleSendResponse>> {
  const { to, field } = recipientOf(input);
  const from = parseMailboxField(input.from, 'from');
  const content: MessageContent =
    input.templateId === undefined
      ? { html: DEFAULT_OTP_TEMPLATE, subject: input.subject ?? DEFAULT_OTP_SUBJECT }
      : { templateId: input.templateId, ...(input.subject === undefined ? {} : { subject: input.subject }) };
  const { principal, now } = context;
  // `to` and its alias are one field: the same request whichever name it came under.
  const payload = { ...input, idempotencyKey: undefined, email: undefined, to };
  return overlappingClaim(
    'otp/send',
    input,
    context,
    (gate) =>
      deliverOne(
        {
          type: 'otp',
          from,
          recipients: [to],
          cc: [],
          bcc: [],
          replyTo: undefined,
          content,
          variables: {
            code: input.code,
            appName: input.appName,
            ...(input.expiresInMinutes === undefined ? {} : { expiresInMinutes: input.expiresInMinutes }),
          },
          attachments: [],
          suppressWhen: SUPPRESSED_FOR_TRANSACTIONAL,
          admit: (recipient) => admitOtp(principal, recipient, now),
          // A code read back from the message log (members, full keys, for the retention days) would sign its reader in as the recipient.
          secret: input.code,
        },
        context,
        'OTP email sent',
        field,
        gate,
      ),
    payload,
  );
}
