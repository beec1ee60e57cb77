/**
 * Keeping each message's content for the message log (GET
 * /api/emails/:id/content, the dashboard's email page): every sender stores
 * what it hands to SES, beside the SES call rather than after it, so a send
 * takes no longer for it. One PutObject per message (docs/performance.md).
 */
import { putEmailContent, type EmailContent } from '#shared/messages/service.ts';
import { log } from '#shared/platform/log.ts';
import { formatMailbox } from './address.ts';
import { serviceHeaders, type OutgoingEmail } from './transport.ts';

/** What a masked secret reads as in kept content. */
export const MASKED_SECRET = '••••••';

/**
 * The message as SES gets it (its HTML before open and click tracking rewrites
 * it), and of its attachments only what names them; `secret`, where the
 * subject, text or HTML carry it, reads as MASKED_SECRET.
 */
export function emailContentOf(email: OutgoingEmail, secret?: string): EmailContent {
  const mask = (text: string) => (secret ? text.split(secret).join(MASKED_SECRET) : text);
  return {
    subject: mask(email.subject),
    from: formatMailbox(email.from),
    to: [...email.to],
    cc: [...email.cc],
    bcc: [...email.bcc],
    replyTo: email.replyTo.map(formatMailbox),
    headers: serviceHeaders(email),
    text: mask(email.text),
    html: mask(email.html),
    attachments: email.attachments.map(({ filename, contentType, content }) => ({ filename, contentType, size: content.byteLength })),
  };
}

/**
 * Stores the message's content under its email id. Never fails the send: the
 * message may already have left, and a send answered with an error would be
 * sent again; the email page then says its content is not kept.
 */
export async function keepEmailContent(accountId: string, emailId: string, email: OutgoingEmail, secret?: string): Promise<void> {
  try {
    await putEmailContent(accountId, emailId, emailContentOf(email, secret));
  } catch (error) {
    log.error('email content not stored; the message goes on without it', { accountId, emailId, error });
  }
}
