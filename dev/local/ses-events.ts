/**
 * SES event publishing records as EventBridge delivers them (shape of AWS's
 * documented examples), for what stands in for SES feedback locally: the
 * mailbox simulator of `npm start` (./mailbox-simulator.ts) and the tests.
 */
import { ACCOUNT_TAG, BROADCAST_TAG, EMAIL_TAG, TRACKING_OPTIONS_TAG, TRACKING_TAG } from '#shared/sending/message-tags.ts';

export type SesEventType = 'Bounce' | 'Complaint' | 'Delivery' | 'DeliveryDelay' | 'Reject' | 'Open' | 'Click';

export interface SentMessage {
  accountId: string;
  emailId: string;
  messageId: string;
  recipient: string;
  /** The tracking tag the transport sets; older messages have none. */
  trackingId?: string;
  /** `mail.commonHeaders`, as SES reports them. */
  from?: string;
  subject?: string;
  /** The link a Click reports. */
  link?: string;
  /** The tracking tag (`opens`, `clicks`, `opens-clicks`) of a message sent with `tracking`. */
  tracking?: string;
  /** The broadcast tag of a broadcast's message: SES echoes every tag of the send, and the broadcast's results count by it. */
  broadcastId?: string;
}

const DETAIL_TYPES: Record<SesEventType, string> = {
  Bounce: 'Email Bounced',
  Complaint: 'Email Complaint Received',
  Delivery: 'Email Delivered',
  DeliveryDelay: 'Email Delivery Delayed',
  Reject: 'Email Rejected',
  Open: 'Email Opened',
  Click: 'Email Clicked',
};

/** The fields of each event type's own body, for one recipient. */
function bodyOf(type: SesEventType, recipient: string, at: string, link = 'https://example.com/'): Record<string, unknown> {
  switch (type) {
    case 'Bounce':
      return {
        bounce: {
          bounceType: 'Permanent',
          bounceSubType: 'General',
          bouncedRecipients: [{ emailAddress: recipient, action: 'failed', status: '5.1.1' }],
          timestamp: at,
          feedbackId: `fb-${at}`,
        },
      };
    case 'Complaint':
      return { complaint: { complainedRecipients: [{ emailAddress: recipient }], timestamp: at, feedbackId: `fc-${at}`, complaintFeedbackType: 'abuse' } };
    case 'Delivery':
      return { delivery: { timestamp: at, recipients: [recipient], smtpResponse: '250 2.6.0 Message received' } };
    case 'DeliveryDelay':
      return {
        deliveryDelay: {
          timestamp: at,
          delayType: 'MailboxFull',
          expirationTime: at,
          delayedRecipients: [{ emailAddress: recipient, status: '4.2.2', diagnosticCode: '452 4.2.2 Mailbox full' }],
        },
      };
    case 'Reject':
      return { reject: { reason: 'Bad content' } };
    case 'Open':
      return { open: { timestamp: at, userAgent: 'Mozilla/5.0', ipAddress: '192.0.2.1' } };
    case 'Click':
      return { click: { timestamp: at, link, linkTags: {}, userAgent: 'Mozilla/5.0', ipAddress: '192.0.2.1' } };
  }
}

/** The EventBridge event SES publishes for `type` about `message`. */
export function sesEventBridgeEvent(type: SesEventType, message: SentMessage, at: Date = new Date()) {
  const time = at.toISOString();
  return {
    version: '0',
    id: `local-${message.messageId}-${type}`,
    'detail-type': DETAIL_TYPES[type],
    source: 'aws.ses',
    account: '000000000000',
    time,
    region: 'local',
    resources: [],
    detail: {
      eventType: type,
      mail: {
        timestamp: time,
        source: 'local',
        messageId: message.messageId,
        destination: [message.recipient],
        ...(message.from ? { commonHeaders: { from: [message.from], to: [message.recipient], subject: message.subject ?? '' } } : {}),
        tags: {
          'ses:configuration-set': ['local'],
          [ACCOUNT_TAG]: [message.accountId],
          [EMAIL_TAG]: [message.emailId],
          ...(message.trackingId ? { [TRACKING_TAG]: [message.trackingId] } : {}),
          ...(message.tracking ? { [TRACKING_OPTIONS_TAG]: [message.tracking] } : {}),
          ...(message.broadcastId ? { [BROADCAST_TAG]: [message.broadcastId] } : {}),
        },
      },
      ...bodyOf(type, message.recipient, time, message.link),
    },
  };
}
