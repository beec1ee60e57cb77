/**
 * The mail transport: one message in, one outcome out. SES v2 in production
 * and local runs (the emulator speaks the same API); a test replaces the
 * client's `send` only to inject faults the emulator cannot produce.
 */
import { SendEmailCommand, SESv2Client, type SendEmailCommandInput } from '@aws-sdk/client-sesv2';
import { awsConnection, config } from '#shared/platform/config.ts';
import { isHeaderSafe } from '#shared/platform/schema/common.ts';
import { formatMailbox, type Mailbox } from './address.ts';
import { ACCOUNT_TAG, BROADCAST_TAG, EMAIL_TAG, TRACKING_OPTIONS_TAG, TRACKING_TAG } from './message-tags.ts';
import { configurationSetFor, trackedHtml, trackingTagValue, type Tracking } from './tracking.ts';
import type { OutgoingAttachment } from '#shared/attachments/budget.ts';

export interface OutgoingEmail {
  from: Mailbox;
  to: string[];
  cc: readonly string[];
  bcc: readonly string[];
  replyTo: readonly Mailbox[];
  subject: string;
  html: string;
  text: string;
  attachments: readonly OutgoingAttachment[];
  /** The recipient's one-click unsubscribe address, when the message carries an unsubscribe link. */
  unsubscribeUrl?: string;
  /** The `List-Id` of list mail (RFC 2919; shared/broadcasts/list-id.ts): broadcasts carry their audience's. */
  listId?: string;
  /** Whose message this is: sent as SES message tags, so feedback events name the account, the record and its tracking id. */
  tags?: { accountId: string; emailId: string; trackingId?: string; broadcastId?: string };
  /** Opens and clicks SES should track: chooses the configuration set (./tracking.ts). */
  tracking?: Tracking;
}

/** Why SES did not take a message, as the API reports it per recipient. */
export type DeliveryErrorCode = 'MESSAGE_REJECTED' | 'SENDER_NOT_VERIFIED' | 'INVALID_EMAIL' | 'SES_THROTTLED' | 'SENDING_PAUSED';

export type SendOutcome = { status: 'sent'; messageId: string } | { status: 'failed'; error: DeliveryErrorCode; message: string };

export interface MailTransport {
  /** Hands one message to the mail service. Known refusals are outcomes; anything else throws. */
  send(email: OutgoingEmail): Promise<SendOutcome>;
}

/**
 * Module scope, so a warm Lambda reuses its connections. The SDK's standard
 * retry already backs off and retries throttling (TooManyRequests,
 * LimitExceeded) before an error reaches us. Built by a call marked pure, so
 * that a bundle importing the sending code for its helpers alone (the
 * broadcast routes that never send) drops the client and the SES SDK.
 */
export const ses = /* @__PURE__ */ newSesClient();

function newSesClient(): SESv2Client {
  return new SESv2Client({ ...awsConnection(config.SES_ENDPOINT), maxAttempts: 3 });
}

function headerValue(value: string): string {
  if (!isHeaderSafe(value)) throw new Error('A header value reached the transport with a line break');
  return value;
}

const UTF8 = 'UTF-8';

/** The headers Postlane adds to a message beyond SES's own (From, To, Subject…); the message's stored content shows them too. */
export function serviceHeaders(email: Pick<OutgoingEmail, 'unsubscribeUrl' | 'listId'>): { name: string; value: string }[] {
  return [
    // RFC 8058: a POST to the List-Unsubscribe address with this body unsubscribes without a visit.
    ...(email.unsubscribeUrl
      ? [
          { name: 'List-Unsubscribe', value: `<${headerValue(email.unsubscribeUrl)}>` },
          { name: 'List-Unsubscribe-Post', value: 'List-Unsubscribe=One-Click' },
        ]
      : []),
    ...(email.listId ? [{ name: 'List-Id', value: headerValue(email.listId) }] : []),
  ];
}

/** The SendEmail request: Simple content keeps custom headers and attachments (Raw would mean hand-built MIME). */
export function sendEmailInput(email: OutgoingEmail, configurationSet = config.SES_CONFIGURATION_SET): SendEmailCommandInput {
  const tracked = trackingTagValue(email.tracking);
  const headers = serviceHeaders(email).map(({ name, value }) => ({ Name: name, Value: value }));
  return {
    // Unset locally: the emulator has no configuration sets, and nothing there publishes events.
    ...(configurationSet ? { ConfigurationSetName: configurationSetFor(configurationSet, email.tracking) } : {}),
    ...(email.tags
      ? {
          EmailTags: [
            { Name: ACCOUNT_TAG, Value: email.tags.accountId },
            { Name: EMAIL_TAG, Value: email.tags.emailId },
            ...(email.tags.trackingId ? [{ Name: TRACKING_TAG, Value: email.tags.trackingId }] : []),
            ...(email.tags.broadcastId ? [{ Name: BROADCAST_TAG, Value: email.tags.broadcastId }] : []),
            ...(tracked ? [{ Name: TRACKING_OPTIONS_TAG, Value: tracked }] : []),
          ],
        }
      : {}),
    FromEmailAddress: headerValue(formatMailbox(email.from)),
    Destination: {
      ToAddresses: email.to,
      ...(email.cc.length ? { CcAddresses: [...email.cc] } : {}),
      ...(email.bcc.length ? { BccAddresses: [...email.bcc] } : {}),
    },
    ...(email.replyTo.length ? { ReplyToAddresses: email.replyTo.map((mailbox) => headerValue(formatMailbox(mailbox))) } : {}),
    Content: {
      Simple: {
        Subject: { Data: headerValue(email.subject), Charset: UTF8 },
        Body: { Html: { Data: trackedHtml(email.html, email.tracking), Charset: UTF8 }, Text: { Data: email.text, Charset: UTF8 } },
        ...(headers.length ? { Headers: headers } : {}),
        ...(email.attachments.length
          ? {
              Attachments: email.attachments.map((attachment) => ({
                FileName: headerValue(attachment.filename),
                RawContent: attachment.content,
                ContentType: headerValue(attachment.contentType),
                ContentDisposition: 'ATTACHMENT' as const,
                ContentTransferEncoding: 'BASE64' as const,
              })),
            }
          : {}),
      },
    },
  };
}

const THROTTLING = new Set(['TooManyRequestsException', 'LimitExceededException', 'ThrottlingException', 'Throttling']);

/**
 * The outcome an SES error stands for, or undefined for errors that are ours
 * or SES's to fix (they surface as 500). Throttling drops the message: SES
 * does not queue it, so it is reported, never counted as sent.
 */
export function outcomeOfSesError(error: unknown): SendOutcome | undefined {
  if (!(error instanceof Error)) return undefined;
  const failed = (code: DeliveryErrorCode, message: string): SendOutcome => ({ status: 'failed', error: code, message });
  if (THROTTLING.has(error.name) || /maximum sending rate exceeded/i.test(error.message)) {
    return failed('SES_THROTTLED', 'The sending rate of the SES account was exceeded; send again later');
  }
  switch (error.name) {
    case 'MessageRejected':
      return failed('MESSAGE_REJECTED', `SES rejected the message: ${error.message}`);
    case 'MailFromDomainNotVerifiedException':
      return failed('SENDER_NOT_VERIFIED', 'The MAIL FROM domain of the sender is not verified in SES');
    case 'AccountSuspendedException':
    case 'SendingPausedException':
      return failed('SENDING_PAUSED', 'Sending is paused for the SES account of this deployment');
    case 'BadRequestException':
      return /address/i.test(error.message) ? failed('INVALID_EMAIL', `SES refused an address: ${error.message}`) : undefined;
    default:
      return undefined;
  }
}

/** The SES v2 transport over a client (the module's own unless a test passes one). */
export function sesTransport(client: Pick<SESv2Client, 'send'> = ses): MailTransport {
  return {
    async send(email) {
      try {
        const { MessageId } = await client.send(new SendEmailCommand(sendEmailInput(email)));
        return { status: 'sent', messageId: MessageId ?? '' };
      } catch (error) {
        const outcome = outcomeOfSesError(error);
        if (!outcome) throw error;
        return outcome;
      }
    },
  };
}
