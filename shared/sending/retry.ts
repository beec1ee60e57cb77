/**
 * Throttled sends, both halves: the request puts a message SES throttled on
 * the retry queue (`queueBodyFor`, `enqueueRetries`), and the worker sends it
 * later (`queuedSendBatch`), moving its record queued → sent, or → failed
 * with the email refunded once the last attempt is throttled too.
 *
 * Quota: a queued message is charged when it is queued, like a sent one (the
 * response's emailsRemaining already counts it); the worker charges nothing,
 * and gives the email back only when the message finally fails.
 */
import { changeEmail, emailChanges, failQueuedEmail, getEmailRecord } from '#shared/messages/service.ts';
import { readQueuedMessage, storeQueuedMessage } from './queued-message-store.ts';
import {
  backoffSeconds,
  decodeQueuedSend,
  encodeQueuedSend,
  encodeStoredSendPointer,
  fitsQueue,
  retryQueue,
  storedSendPointer,
  type QueuedSend,
  type StoredSendPointer,
  type RetryQueue,
} from './retry-queue.ts';
import { MAX_RECEIVES } from './retry-policy.ts';
import { sesTransport, type MailTransport, type SendOutcome } from './transport.ts';
import { log } from '#shared/platform/log.ts';
import type { EachMessage, QueueMessage, Settled } from '#shared/platform/handlers/queue-worker.ts';
import { emailFactsOfRecord, failedEvent, sentEvent, type EmailFacts } from '#shared/messages/email-events.ts';

/**
 * The queue body for a throttled message, or undefined when there is no
 * queue: then it fails as SES_THROTTLED, as before the queue existed. A
 * message too large for one SQS message (1 MiB) is kept in the attachments
 * bucket and the queue gets a pointer; if the bucket refuses it, it fails as
 * SES_THROTTLED too.
 */
export async function queueBodyFor(send: QueuedSend, queue: RetryQueue | undefined = retryQueue): Promise<string | undefined> {
  if (!queue) return undefined;
  const body = encodeQueuedSend(send);
  if (fitsQueue(body)) return body;
  try {
    await storeQueuedMessage(send.accountId, send.emailId, body);
    return encodeStoredSendPointer(send);
  } catch (error) {
    log.error('could not store a throttled message too large for the queue', { accountId: send.accountId, emailId: send.emailId, error });
    return undefined;
  }
}

export interface PendingRetry {
  emailId: string;
  /** Its record's, for the `email.failed` event should the queue refuse it. */
  facts: EmailFacts;
  body: string;
  /** The quota month it was charged to; none for an uncharged cc or bcc copy. */
  period: string | undefined;
}

export const QUEUE_REFUSED = { code: 'SES_THROTTLED', message: 'The sending rate of the SES account was exceeded; send again later' } as const;

/**
 * Puts messages whose records are already stored as `queued` on the queue.
 * Records first: the worker must never find a message whose record is not
 * written yet. A message the queue refuses (SQS down) fails as SES_THROTTLED
 * after all, its record and quota settled like a last attempt; returns
 * the email ids of those.
 */
export async function enqueueRetries(accountId: string, pending: readonly PendingRetry[], queue: RetryQueue | undefined = retryQueue): Promise<Set<string>> {
  const refused = new Set<string>();
  await Promise.all(
    pending.map(async ({ emailId, facts, body, period }) => {
      try {
        await queue!.enqueue(body, backoffSeconds(1));
      } catch (error) {
        log.error('retry queue refused a throttled message', { accountId, emailId, error });
        refused.add(emailId);
        // Other messages of the request may have left, so this must not fail it: a record left `queued` keeps its charge.
        await failQueuedEmail(accountId, emailId, QUEUE_REFUSED, period, failedEvent(accountId, facts, QUEUE_REFUSED, Date.now())).catch((cause: unknown) => {
          log.error('refused message not settled; its record stays queued and charged', { accountId, emailId, error: cause });
        });
      }
    }),
  );
  return refused;
}

type Attempt = SendOutcome | { status: 'error'; cause: unknown };

async function attemptSend(transport: MailTransport, send: QueuedSend): Promise<Attempt> {
  try {
    return await transport.send(send.email);
  } catch (cause) {
    return { status: 'error', cause };
  }
}

/**
 * One receive of one message. `receives` is SQS's ApproximateReceiveCount:
 * the request's own try was attempt 1, so this is attempt `receives + 1`.
 */
async function sendQueued(send: QueuedSend, receives: number, receiptHandle: string, transport: MailTransport, queue: RetryQueue): Promise<Settled> {
  const { accountId, emailId, period } = send;
  const last = receives >= MAX_RECEIVES;
  const record = await getEmailRecord(accountId, emailId);
  if (!record) {
    // Written before the message was queued, so only a request that failed after queueing leaves none; its client was told it failed.
    log.error('queued message has no email record', { accountId, emailId, receives });
    if (!last) await queue.retryLater(receiptHandle, backoffSeconds(receives + 1));
    return 'again';
  }
  // An earlier receive settled it (SQS delivers at least once).
  if (record.status !== 'queued') return 'done';
  if (record.test) {
    // A test key's message never reaches SES, however it came to be queued: it is settled as its send records it, sent without SES and uncharged.
    log.error('test message on the retry queue; settled without sending', { accountId, emailId });
    await changeEmail(
      accountId,
      emailId,
      emailChanges.status(['queued'], 'sent', { test: true }),
      sentEvent(accountId, emailFactsOfRecord(record), Date.now()),
    );
    return 'done';
  }

  const outcome = await attemptSend(transport, send);
  if (outcome.status === 'sent') {
    await changeEmail(accountId, emailId, emailChanges.sentFromQueue(outcome.messageId), sentEvent(accountId, emailFactsOfRecord(record), Date.now()));
    return 'done';
  }
  const retryable = outcome.status === 'error' || outcome.error === 'SES_THROTTLED';
  if (retryable && !last) {
    log.warn('queued message not sent; retrying later', { accountId, emailId, receives, error: outcome.status === 'error' ? outcome.cause : outcome.error });
    await queue.retryLater(receiptHandle, backoffSeconds(receives + 1));
    return 'again';
  }
  const error =
    outcome.status === 'error'
      ? { code: 'SEND_FAILED', message: `The message could not be handed to SES after ${receives + 1} attempts` }
      : { code: outcome.error, message: retryable ? `${outcome.message} (after ${receives + 1} attempts)` : outcome.message };
  await failQueuedEmail(accountId, emailId, error, period, failedEvent(accountId, emailFactsOfRecord(record), error, Date.now()));
  if (!retryable) return 'done';
  // Failed for good: visible again at once, so SQS moves it to the dead-letter queue (past maxReceiveCount) for the alarm and the operator.
  log.error('queued message failed after its last attempt', {
    accountId,
    emailId,
    receives,
    error: outcome.status === 'error' ? outcome.cause : outcome.error,
  });
  await queue.retryLater(receiptHandle, 0);
  return 'again';
}

export const STORED_MESSAGE_LOST = { code: 'SEND_FAILED', message: 'The stored message was no longer there to send' } as const;

/** Sends the stored message a pointer names; one gone from the bucket fails its record for good. */
async function sendStored(received: QueueMessage, pointer: StoredSendPointer, transport: MailTransport, queue: RetryQueue): Promise<Settled> {
  const body = await readQueuedMessage(pointer.accountId, pointer.emailId);
  if (body !== undefined) return sendQueued(decodeQueuedSend(body), received.receives, received.receiptHandle, transport, queue);
  // Only the bucket's lifecycle removes it, once SQS no longer keeps the message it was sent with: a message
  // `admin retry replay` sent again after that (a new message) fails for good.
  log.error('stored throttled message is gone', { accountId: pointer.accountId, emailId: pointer.emailId });
  const record = await getEmailRecord(pointer.accountId, pointer.emailId);
  const event = record ? failedEvent(pointer.accountId, emailFactsOfRecord(record), STORED_MESSAGE_LOST, Date.now()) : [];
  await failQueuedEmail(pointer.accountId, pointer.emailId, STORED_MESSAGE_LOST, pointer.period, event);
  return 'done';
}

/** What a retry queue body holds: the message itself, or a pointer to it in the bucket (too large for one SQS message). */
export type RetryMessage = { inline: QueuedSend } | { stored: StoredSendPointer };

/** The message a retry queue body holds; throws when the body is not one this code wrote. */
export function decodeRetryMessage(body: string): RetryMessage {
  const pointer = storedSendPointer(body);
  return pointer ? { stored: pointer } : { inline: decodeQueuedSend(body) };
}

/**
 * The worker's handling of one batch's messages: those in the queue itself
 * (under 1 MiB each) are sent at once; stored ones, up to ~40 MB of JSON
 * each, one at a time, within the worker's memory.
 */
export function queuedSendBatch(transport: MailTransport = sesTransport(), queue: RetryQueue | undefined = retryQueue): EachMessage<RetryMessage> {
  if (!queue) throw new Error('RETRY_QUEUE_URL is not set: the worker cannot reschedule messages');
  let storedTurn: Promise<unknown> = Promise.resolve();
  return (message, received) => {
    if ('inline' in message) return sendQueued(message.inline, received.receives, received.receiptHandle, transport, queue);
    const sent = storedTurn.then(() => sendStored(received, message.stored, transport, queue));
    storedTurn = sent.catch(() => undefined);
    return sent;
  };
}
