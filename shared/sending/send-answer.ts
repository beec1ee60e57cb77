import { PostlaneError } from '#shared/platform/errors.ts';
import type * as v from 'valibot';
import type { EmailSendInput, emailSendResultReply } from './schema.ts';
import { resolveAttachments } from '#shared/attachments/service.ts';
import type { OutgoingAttachment } from '#shared/attachments/budget.ts';
import { EffectCommittedError, idempotentSend, type Idempotent } from './idempotency.ts';
import {
  contentOf,
  deliver,
  parseMailboxField,
  SUPPRESSED_FOR_EMAIL,
  UnrecordedDeliveryError,
  type Delivery,
  type DeliveryReport,
  type MessageResult,
  type SendContext,
} from './service.ts';

/** Email send result (docs/api.md, "Sending email"); `queued: true` on a recipient whose message SES throttled and the retry queue will send later. */
export type EmailSendResult = Omit<v.InferOutput<typeof emailSendResultReply>, 'success'>;

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
 * What sending `input` delivers, once its attachments are resolved. Its own
 * refusals (a malformed `from` or `replyTo`) are thrown here, before anything
 * is read or claimed.
 */
export function emailDeliveryOf(input: EmailSendInput): (attachments: OutgoingAttachment[]) => Delivery {
  const from = parseMailboxField(input.from, 'from');
  const replyTo = input.replyTo === undefined ? undefined : parseMailboxField(input.replyTo, 'replyTo');
  const content = contentOf(input);
  return (attachments) => ({
    type: 'email',
    from,
    recipients: [...new Set(input.recipients)],
    cc: input.cc,
    bcc: input.bcc,
    replyTo,
    content,
    variables: input.variables,
    attachments,
    suppressWhen: SUPPRESSED_FOR_EMAIL,
    ...(input.tracking ? { tracking: input.tracking } : {}),
  });
}

/**
 * The answer to a send from its report: the result when some recipient's
 * message was accepted; else ALL_RECIPIENTS_FAILED (422) carrying the result,
 * or SENDING_PAUSED (503) when SES's sending is paused for the whole deployment.
 */
export function sendAnswer(report: DeliveryReport, recipientCount: number): EmailSendResult {
  const result = resultOf(report, recipientCount);
  if (reachedSomeRecipient(report)) return result;
  const paused = report.messages.some((message) => message.error?.code === 'SENDING_PAUSED');
  throw new PostlaneError(paused ? 'SENDING_PAUSED' : 'ALL_RECIPIENTS_FAILED', result.message, { fields: result });
}

/**
 * POST /api/email/send: one message per distinct recipient (a repeated
 * address gets one), cc and bcc on each, or each on its own message when the
 * messages carry signed links; suppressed cc and bcc addresses are left out
 * and listed among the failures (see `sendAnswer`). With an
 * `idempotencyKey`, as on the single sends, a retry of the same request gets
 * the first answer back and sends nothing again.
 */
export async function sendEmail(input: EmailSendInput, context: SendContext): Promise<Idempotent<EmailSendResult>> {
  const deliveryOf = emailDeliveryOf(input);
  const { principal, now } = context;
  return idempotentSend('email/send', input, context, async () => {
    const delivery = deliveryOf(await resolveAttachments(principal.accountId, input.attachments, now));
    let report: DeliveryReport;
    try {
      report = await deliver(delivery, context);
    } catch (error) {
      // Some messages left: a retry with the key must replay this answer, never send again.
      if (error instanceof UnrecordedDeliveryError) throw new EffectCommittedError(resultOf(error.report, delivery.recipients.length), error.cause);
      throw error;
    }
    return sendAnswer(report, delivery.recipients.length);
  });
}
