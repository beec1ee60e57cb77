/**
 * SES event publishing records as EventBridge delivers them (shape of AWS's
 * documented examples), for what stands in for SES feedback locally: the
 * mailbox simulator of `npm start` (./mailbox-simulator.ts) and the tests.
 */
import { ACCOUNT_TAG, EMAIL_TAG } from '#shared/email/message-tags.ts';

export type SesEventType = 'Bounce' | 'Complaint' | 'Delivery' | 'Reject';

export interface SentMessage {
  accountId: string;
  emailId: string;
  messageId: string;
  recipient: string;
}

const DETAIL_TYPES: Record<SesEventType, string> = {
  Bounce: 'Email Bounced',
  Complaint: 'Email Complaint Received',
  Delivery: 'Email Delivered',
  Reject: 'Email Rejected',
};

/** The fields of each event type's own body, for one recipient. */
function bodyOf(type: SesEventType, recipient: string, at: string): Record<string, unknown> {
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
    case 'Reject':
      return { reject: { reason: 'Bad content' } };
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
        tags: { 'ses:configuration-set': ['local'], [ACCOUNT_TAG]: [message.accountId], [EMAIL_TAG]: [message.emailId] },
      },
      ...bodyOf(type, message.recipient, time),
    },
  };
}
