/**
 * The retry queue for messages SES throttled. SES drops a throttled message
 * (it does not queue it), so the composed message goes onto an SQS queue and
 * the worker (functions/email/send-queued.ts) sends it later with backoff.
 * The same code runs against the local stand-in of `npm start` and the tests
 * (dev/local/sqs.ts); only the endpoint differs.
 */
import { ChangeMessageVisibilityCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { sqs } from '#shared/platform/aws/sqs.ts';
import * as v from 'valibot';
import { config } from '#shared/platform/config.ts';
import { backoffSeconds as backoffFrom, MAX_DELAY_SECONDS, MAX_QUEUED_MESSAGE_BYTES } from './retry-policy.ts';
import type { OutgoingEmail } from './transport.ts';

/** Seconds to wait after `attempts` failed tries, from this deployment's RETRY_BACKOFF_SECONDS. */
export function backoffSeconds(attempts: number): number {
  return backoffFrom(attempts, config.RETRY_BACKOFF_SECONDS);
}

/** What the worker needs to send a throttled message later, charge-free: the quota was charged when it was queued. */
export interface QueuedSend {
  accountId: string;
  emailId: string;
  /** The quota month the message was charged to, refunded there if it finally fails; none for a cc or bcc copy, which is not charged. */
  period?: string;
  email: OutgoingEmail;
}

const Mailbox = v.object({ address: v.string(), name: v.optional(v.string()) });

/** The queue's message body, version 1: the outgoing email with attachments in base64. */
const QueuedSendBody = v.object({
  version: v.literal(1),
  accountId: v.string(),
  emailId: v.string(),
  period: v.optional(v.string()),
  email: v.object({
    from: Mailbox,
    to: v.array(v.string()),
    cc: v.array(v.string()),
    bcc: v.array(v.string()),
    replyTo: v.array(Mailbox),
    subject: v.string(),
    html: v.string(),
    text: v.string(),
    attachments: v.array(v.object({ filename: v.string(), contentType: v.string(), content: v.string() })),
    unsubscribeUrl: v.optional(v.string()),
    tags: v.optional(v.object({ accountId: v.string(), emailId: v.string(), trackingId: v.optional(v.string()) })),
    tracking: v.optional(v.object({ opens: v.boolean(), clicks: v.boolean() })),
  }),
});

export function encodeQueuedSend(send: QueuedSend): string {
  const { email } = send;
  return JSON.stringify({
    version: 1,
    accountId: send.accountId,
    emailId: send.emailId,
    ...(send.period === undefined ? {} : { period: send.period }),
    email: {
      ...email,
      attachments: email.attachments.map((attachment) => ({ ...attachment, content: Buffer.from(attachment.content).toString('base64') })),
    },
  });
}

/**
 * The queue's message body for a message whose body is kept in the bucket
 * (shared/sending/queued-message-store.ts): too large for one SQS message.
 */
const StoredSendPointer = v.object({
  version: v.literal(1),
  accountId: v.string(),
  emailId: v.string(),
  period: v.optional(v.string()),
  stored: v.literal(true),
});

export type StoredSendPointer = v.InferOutput<typeof StoredSendPointer>;

export function encodeStoredSendPointer(send: Pick<QueuedSend, 'accountId' | 'emailId' | 'period'>): string {
  return JSON.stringify({
    version: 1,
    accountId: send.accountId,
    emailId: send.emailId,
    ...(send.period === undefined ? {} : { period: send.period }),
    stored: true,
  });
}

/** The pointer a queue body holds, or undefined when it holds the message itself. */
export function storedSendPointer(body: string): StoredSendPointer | undefined {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return undefined;
  }
  const parsed = v.safeParse(StoredSendPointer, json);
  return parsed.success ? parsed.output : undefined;
}

/** The message a body holds; throws when the body is not one this code wrote. */
export function decodeQueuedSend(body: string): QueuedSend {
  const { version: _version, email, ...rest } = v.parse(QueuedSendBody, JSON.parse(body));
  return {
    ...rest,
    email: {
      ...email,
      from: { address: email.from.address, ...(email.from.name === undefined ? {} : { name: email.from.name }) },
      replyTo: email.replyTo.map((mailbox) => ({ address: mailbox.address, ...(mailbox.name === undefined ? {} : { name: mailbox.name }) })),
      attachments: email.attachments.map((attachment) => ({ ...attachment, content: Buffer.from(attachment.content, 'base64') })),
    },
  } as QueuedSend;
}

export interface RetryQueue {
  /** Puts an encoded message on the queue, first visible after `delaySeconds`. */
  enqueue(body: string, delaySeconds: number): Promise<void>;
  /** Makes a received message visible again after `seconds` (its next attempt). */
  retryLater(receiptHandle: string, seconds: number): Promise<void>;
}

/** The one SQS client (shared/platform/aws/sqs.ts), here where the queues' modules have always taken it from. */
export { sqs };

export function sqsRetryQueue(queueUrl: string, client: Pick<SQSClient, 'send'> = sqs): RetryQueue {
  return {
    async enqueue(body, delaySeconds) {
      await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body, DelaySeconds: Math.min(MAX_DELAY_SECONDS, delaySeconds) }));
    },
    async retryLater(receiptHandle, seconds) {
      await client.send(new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl, ReceiptHandle: receiptHandle, VisibilityTimeout: seconds }));
    },
  };
}

/** The deployment's retry queue, or none when RETRY_QUEUE_URL is unset (throttled messages then fail as before). */
export const retryQueue: RetryQueue | undefined = /* @__PURE__ */ configuredRetryQueue();

function configuredRetryQueue(): RetryQueue | undefined {
  return config.RETRY_QUEUE_URL ? sqsRetryQueue(config.RETRY_QUEUE_URL) : undefined;
}

/** True when the body fits in one SQS message. */
export function fitsQueue(body: string): boolean {
  return Buffer.byteLength(body, 'utf8') <= MAX_QUEUED_MESSAGE_BYTES;
}
