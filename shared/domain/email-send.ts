import { PostlaneError } from '#shared/errors.ts';
import type * as v from 'valibot';
import type { EmailSendInput, emailSendResultReply } from '#shared/schemas/sending.ts';
import { resolveAttachments } from './attachments.ts';
import { EffectCommittedError, idempotentSend, type Idempotent } from './idempotency.ts';
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

/** Email send result (docs/api.md, "Sending email"); `queued: true` on a recipient whose message SES throttled and the retry queue will send later. */
export type EmailSendResult = Omit<v.InferOutput<typeof emailSendResultReply>, 'success'>;

/** Runs a send's work at most once per idempotency key: see shared/domain/idempotency.ts. */
export type SendOnce = (run: () => Promise<EmailSendResult>) => Promise<Idempotent<EmailSendResult>>;

function summary(sent: number, total: number): string {
  if (sent === 0) return `The email was not sent to any of the ${total} recipient${total === 1 ? '' : 's'}`;
  return sent === total ? `Email sent to ${total} recipient${total === 1 ? '' : 's'}` : `Email sent to ${sent} of ${total} recipients`;
}

function failure(result: MessageResult): EmailSendResult['failedEmails'][number] {
  return { recipient: result.recipient, error: result.error!.code, message: result.error!.message };
}

function accepted(result: MessageResult): boolean {
  return result.status === 'sent' || result.status === 'queued';
}

/** Some recipient's message was sent or queued (a cc or bcc copy goes only with one). */
function reachedSomeRecipient(report: DeliveryReport): boolean {
  return report.messages.some((result) => !result.copyOf && accepted(result));
}

/**
 * The answer to a send from its report: every message sent or queued counts
 * as accepted (queued ones are charged and sent later), the own copies of cc
 * and bcc addresses included; the summary counts recipients only.
 */
function resultOf(report: DeliveryReport, recipientCount: number): EmailSendResult {
  const sent = report.messages.filter(accepted);
  return {
    message: summary(sent.filter((result) => !result.copyOf).length, recipientCount),
    successfulEmails: sent.map(({ recipient, trackingId, status }) => ({ recipient, trackingId, ...(status === 'queued' ? { queued: true as const } : {}) })),
    failedEmails: [
      ...report.messages.filter((result) => !accepted(result)).map(failure),
      ...report.leftOut.map(({ recipient, error }) => ({ recipient, error: error.code, message: error.message })),
    ],
    recipientCount,
    emailsRemaining: report.emailsRemaining,
  };
}

/**
 * POST /api/email/send: one message per distinct recipient (a repeated
 * address gets one), cc and bcc on each, or each on its own message when the
 * messages carry signed links; suppressed cc and bcc addresses are left out
 * and listed among the failures. Some sent: the result. None sent:
 * ALL_RECIPIENTS_FAILED (422) carrying the result, or SENDING_PAUSED (503)
 * when SES's sending is paused for the whole deployment. With an
 * `idempotencyKey`, as on the single sends, a retry of the same request gets
 * the first answer back and sends nothing again. A batch's item runs `once`
 * under a key of the batch's (shared/domain/email-batch.ts) instead.
 */
export async function sendEmail(
  input: EmailSendInput,
  context: SendContext,
  once: SendOnce = (run) => idempotentSend('email/send', input, context, run),
): Promise<Idempotent<EmailSendResult>> {
  const from = parseMailboxField(input.from, 'from');
  const replyTo = input.replyTo === undefined ? undefined : parseMailboxField(input.replyTo, 'replyTo');
  const content = contentOf(input);
  const { principal, now } = context;
  return once(async () => {
    const attachments = await resolveAttachments(principal.accountId, input.attachments, now);
    const recipients = [...new Set(input.recipients)];
    let report: DeliveryReport;
    try {
      report = await deliver(
        {
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
          ...(input.tracking ? { tracking: input.tracking } : {}),
        },
        context,
      );
    } catch (error) {
      // Some messages left: a retry with the key must replay this answer, never send again.
      if (error instanceof UnrecordedDeliveryError) throw new EffectCommittedError(resultOf(error.report, recipients.length), error.cause);
      throw error;
    }
    const result = resultOf(report, recipients.length);
    if (reachedSomeRecipient(report)) return result;
    const paused = report.messages.some((message) => message.error?.code === 'SENDING_PAUSED');
    throw new PostlaneError(paused ? 'SENDING_PAUSED' : 'ALL_RECIPIENTS_FAILED', result.message, { fields: result });
  });
}
