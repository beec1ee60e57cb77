/**
 * What an operator does with dead letters (`admin feedback replay`,
 * `admin retry replay`, `admin retry settle`): work through a dead-letter queue once, deleting each
 * message whose work is done and leaving the others for the next run. The
 * same code talks to real SQS and to the local stand-in; only the client's
 * endpoint differs.
 */
import { DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import * as v from 'valibot';
import { failQueuedEmail, getEmailRecord } from '#shared/messages/store.ts';
import { applyQueuedSesEvent, decodeQueuedSesEvent } from './service.ts';

/**
 * A message that failed again stays invisible this long, so one run never
 * sees it twice; it is back on the queue for the next run.
 */
const RETRY_LATER_SECONDS = 60;

export interface DrainResult {
  /** Messages handled and deleted. */
  replayed: number;
  /** Messages that failed again; still on the queue. */
  failed: number;
}

/**
 * Receives every visible message of `queueUrl` once and hands its body to
 * `each`; a message is deleted when `each` resolves, kept when it throws.
 */
export async function drainQueue(client: Pick<SQSClient, 'send'>, queueUrl: string, each: (body: string) => Promise<void>): Promise<DrainResult> {
  const result: DrainResult = { replayed: 0, failed: 0 };
  for (;;) {
    const { Messages = [] } = await client.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: RETRY_LATER_SECONDS, WaitTimeSeconds: 0 }),
    );
    if (Messages.length === 0) return result;
    for (const message of Messages) {
      try {
        await each(message.Body ?? '');
      } catch {
        // Counted, not logged: the admin command's output is its one JSON line, and the message is still there to read.
        result.failed++;
        continue;
      }
      await client.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle! }));
      result.replayed++;
    }
  }
}

/**
 * Applies each SES event of the feedback dead-letter queue through the
 * feedback worker's own code: the events the worker failed on for every
 * receive, and those the rule could not put on the feedback queue; both are
 * the EventBridge event as the rule received it. Applying an event is
 * idempotent (every change is conditional on the state it moves from), so
 * replaying one that partly succeeded, or twice, changes nothing more.
 */
export function replayFeedback(client: Pick<SQSClient, 'send'>, queueUrl: string, now: Date = new Date()): Promise<DrainResult> {
  return drainQueue(client, queueUrl, async (body) => {
    await applyQueuedSesEvent(decodeQueuedSesEvent(body), now);
  });
}

/** The fields every retry queue body has, whether it holds the message or points at it. */
const DeadLetteredSend = v.object({ accountId: v.string(), emailId: v.string(), period: v.optional(v.string()) });

export const DEAD_LETTERED = { code: 'SEND_FAILED', message: 'The message could not be sent and was given up on' } as const;

export interface SettleResult extends DrainResult {
  /** Records that were still `queued`, now `failed` with their email refunded. */
  settled: number;
}

/**
 * Settles the retry queue's dead letters: a record a dead-lettered message
 * left `queued` (the worker failed on its last receive before settling it)
 * becomes `failed` and its email is refunded, once (the transaction is
 * conditional on `queued`). They are settled rather than sent again: an OTP
 * or receipt days late is worse than a clear failure the client can act on.
 */
export async function settleRetryDeadLetters(client: Pick<SQSClient, 'send'>, queueUrl: string): Promise<SettleResult> {
  let settled = 0;
  const drained = await drainQueue(client, queueUrl, async (body) => {
    const send = v.parse(DeadLetteredSend, JSON.parse(body));
    if (await failQueuedEmail(send.accountId, send.emailId, DEAD_LETTERED, send.period)) settled++;
  });
  return { ...drained, settled };
}

export interface RequeueResult extends DrainResult {
  /** Messages whose record was still `queued`, put back on the retry queue for the worker to send. */
  requeued: number;
}

/**
 * Replays the retry queue's dead letters once their cause is fixed (SES
 * throttled for longer than the worker's backoff, a bug in the worker): each
 * message whose record is still `queued` goes back on the retry queue as it
 * was, and the worker sends it and settles its record as before. A message
 * whose record is settled already (the worker failed it for good, refunded)
 * is only removed: sending it now would deliver what its client was told failed.
 */
export async function replayRetryDeadLetters(client: Pick<SQSClient, 'send'>, queueUrl: string, retryQueueUrl: string): Promise<RequeueResult> {
  let requeued = 0;
  const drained = await drainQueue(client, queueUrl, async (body) => {
    const send = v.parse(DeadLetteredSend, JSON.parse(body));
    if ((await getEmailRecord(send.accountId, send.emailId))?.status !== 'queued') return;
    await client.send(new SendMessageCommand({ QueueUrl: retryQueueUrl, MessageBody: body }));
    requeued++;
  });
  return { ...drained, requeued };
}
