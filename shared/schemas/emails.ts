import * as v from 'valibot';
import { nullableText, timestamp } from './replies.ts';

export const emailSchema = v.strictObject({
  id: v.string(),
  trackingId: v.string(),
  type: v.picklist(['email', 'otp', 'transactional', 'broadcast']),
  from: v.string(),
  to: v.string(),
  cc: v.array(v.string()),
  bcc: v.array(v.string()),
  replyTo: nullableText,
  subject: v.string(),
  status: v.picklist(['sent', 'failed', 'queued', 'sending', 'suppressed', 'delivered', 'bounced', 'complained', 'rejected']),
  error: v.nullable(v.strictObject({ code: v.string(), message: v.string() })),
  sesMessageId: nullableText,
  test: v.boolean(),
  /** The broadcast this message is one of; null for other sends. */
  broadcastId: nullableText,
  createdAt: timestamp,
});
