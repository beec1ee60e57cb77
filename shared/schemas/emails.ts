import * as v from 'valibot';
import { count, nullableText, timestamp } from './replies.ts';

export const emailSchema = v.strictObject({
  id: v.string(),
  trackingId: v.string(),
  type: v.picklist(['email', 'otp', 'transactional']),
  from: v.string(),
  to: v.string(),
  cc: v.array(v.string()),
  bcc: v.array(v.string()),
  replyTo: nullableText,
  subject: v.string(),
  status: v.picklist(['sent', 'failed', 'queued', 'suppressed', 'delivered', 'bounced', 'complained', 'rejected']),
  error: v.nullable(v.strictObject({ code: v.string(), message: v.string() })),
  sesMessageId: nullableText,
  test: v.boolean(),
  createdAt: timestamp,
  /** Open and click tracking (`tracking` on the send): SES's notifications counted, each once. */
  opens: count,
  clicks: count,
  firstOpenedAt: v.nullable(timestamp),
  lastClickedAt: v.nullable(timestamp),
});
