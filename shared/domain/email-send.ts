import { PostlaneError, ValidationError } from '#shared/errors.ts';
import { SEND_LIMITS, type EmailSendInput } from '#shared/schemas/sending.ts';
import { resolveAttachments } from './attachments.ts';
import { EffectCommittedError, makeIdempotent, type Idempotent } from './idempotency.ts';
import {
  contentOf,
  deliver,
  parseMailboxField,
  SUPPRESSED_FOR_EMAIL,
  UnrecordedDeliveryError,
  type DeliveryReport,
  type MessageResult,
  type SendContext,
} from './sending.ts';

/** Email send result (spec section 2). */
export interface EmailSendResult extends Record<string, unknown> {
  message: string;
  /** `queued: true` on a recipient whose message SES throttled and the retry queue will send later. */
  successfulEmails: { recipient: string; trackingId: string; queued?: true }[];
  failedEmails: { recipient: string; error: string; message: string }[];
  recipientCount: number;
  emailsRemaining: number;
}

/** SES takes at most 50 addresses per message, and every message carries all of cc and bcc. */
function checkDestinations(cc: readonly string[], bcc: readonly string[]): void {
  const room = SEND_LIMITS.destinationsPerMessage - 1;
  if (cc.length + bcc.length > room) {
    throw new ValidationError(
      'VALIDATION_ERROR',
      `cc and bcc together may hold at most ${room} addresses: each message goes to one recipient plus all of them, and SES takes ${SEND_LIMITS.destinationsPerMessage} per message`,
      cc.length > room ? 'cc' : 'bcc',
    );
  }
}

function summary(sent: number, total: number): string {
  if (sent === 0) return `The email was not sent to any of the ${total} recipient${total === 1 ? '' : 's'}`;
  return sent === total ? `Email sent to ${total} recipient${total === 1 ? '' : 's'}` : `Email sent to ${sent} of ${total} recipients`;
}

function failure(result: MessageResult): EmailSendResult['failedEmails'][number] {
  return { recipient: result.recipient, error: result.error!.code, message: result.error!.message };
}

/** The answer to a send from its report: every recipient sent or queued counts as accepted (queued ones are charged and sent later). */
function resultOf(report: DeliveryReport, recipientCount: number): EmailSendResult {
  const sent = report.messages.filter((result) => result.status === 'sent' || result.status === 'queued');
  return {
    message: summary(sent.length, recipientCount),
    successfulEmails: sent.map(({ recipient, trackingId, status }) => ({ recipient, trackingId, ...(status === 'queued' ? { queued: true as const } : {}) })),
    failedEmails: report.messages.filter((result) => !sent.includes(result)).map(failure),
    recipientCount,
    emailsRemaining: report.emailsRemaining,
  };
}

/**
 * POST /api/email/send: one message per distinct recipient (a repeated
 * address gets one), cc and bcc on each. Some sent: the result. None sent:
 * ALL_RECIPIENTS_FAILED (422) carrying the result, or SENDING_PAUSED (503)
 * when SES's sending is paused for the whole deployment. With an
 * `idempotencyKey`, as on the single sends, a retry of the same request gets
 * the first answer back and sends nothing again.
 */
export async function sendEmail(input: EmailSendInput, context: SendContext): Promise<Idempotent<EmailSendResult>> {
  const from = parseMailboxField(input.from, 'from');
  const replyTo = input.replyTo === undefined ? undefined : parseMailboxField(input.replyTo, 'replyTo');
  checkDestinations(input.cc, input.bcc);
  const content = contentOf(input);
  const { principal, now } = context;
  const payload = { ...input, idempotencyKey: undefined };
  return makeIdempotent({ accountId: principal.accountId, scope: `${principal.env}#email/send`, key: input.idempotencyKey, payload, now }, async () => {
    const attachments = await resolveAttachments(principal.accountId, input.attachments, now);
    const recipients = [...new Set(input.recipients)];
    let report: DeliveryReport;
    try {
      report = await deliver({
        type: 'email',
        from,
        recipients,
        cc: input.cc,
        bcc: input.bcc,
        replyTo,
        content,
        variables: input.variables,
        attachments,
        suppressWhen: SUPPRESSED_FOR_EMAIL,
      }, context);
    } catch (error) {
      // Some messages left: a retry with the key must replay this answer, never send again.
      if (error instanceof UnrecordedDeliveryError) throw new EffectCommittedError(resultOf(error.report, recipients.length), error.cause);
      throw error;
    }
    const result = resultOf(report, recipients.length);
    if (result.successfulEmails.length > 0) return result;
    const paused = report.messages.some((message) => message.error?.code === 'SENDING_PAUSED');
    throw new PostlaneError(paused ? 'SENDING_PAUSED' : 'ALL_RECIPIENTS_FAILED', result.message, { fields: result });
  });
}
