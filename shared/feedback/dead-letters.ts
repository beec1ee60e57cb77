/**
 * What an operator does with dead letters (`admin feedback replay`,
 * `admin retry replay`, `admin retry settle`, `admin broadcasts replay`): work through a dead-letter queue once, deleting each
 * message whose work is done and leaving the others for the next run. The
 * same code talks to real SQS and to the local stand-in; only the client's
 * endpoint differs.
 */
import { DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import * as v from 'valibot';
import { awaitsStart, getBroadcastRecord } from '#shared/broadcasts/service.ts';
import { failQueuedEmail, getEmailRecord } from '#shared/messages/service.ts';
import { StartStep } from '#shared/broadcasts/queue.ts';
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

/**
 * A SendMessage request as EventBridge Scheduler's dead letters of an SQS
 * universal target hold it ("Configuring a schedule's dead-letter queue",
 * Scheduler's user guide): the queue's message is its `MessageBody`.
 */
const SendMessageRequest = v.object({ MessageBody: v.string() });

/**
 * The start step a broadcast schedule's dead letter holds. Scheduler writes
 * the target's input as the body, which for the broadcast queue's templated
 * target is the step itself; a body wrapping it in the SendMessage request is
 * unwrapped. Anything else throws, so the message stays for the operator.
 */
export function deadLetteredStart(body: string): StartStep {
  const parsed: unknown = JSON.parse(body);
  const request = v.safeParse(SendMessageRequest, parsed);
  return v.parse(StartStep, request.success ? JSON.parse(request.output.MessageBody) : parsed);
}

export interface StartReplayResult extends DrainResult {
  /** Start steps put back on the broadcast queue: their broadcast was still scheduled for the step's time. */
  requeued: number;
}

/**
 * Replays the broadcast schedules' dead letters once their cause is fixed
 * (the Scheduler role's grant, the broadcast queue): each start step whose
 * broadcast is still scheduled for the step's time goes, unwrapped, on the
 * broadcast queue, and the worker starts the broadcast as the schedule would
 * have. A step whose broadcast moved on (sent by its client in the meantime,
 * cancelled, deleted, turned back into a draft, rescheduled) is only removed:
 * the worker would ignore it anyway (`scheduledStart`). A body that
 * is no start step stays on the queue and counts as failed.
 */
export async function replayScheduledStarts(client: Pick<SQSClient, 'send'>, queueUrl: string, broadcastQueueUrl: string): Promise<StartReplayResult> {
  let requeued = 0;
  const drained = await drainQueue(client, queueUrl, async (body) => {
    const step = deadLetteredStart(body);
    if (!awaitsStart(await getBroadcastRecord(step.accountId, step.broadcastId), step.scheduledAt)) return;
    await client.send(new SendMessageCommand({ QueueUrl: broadcastQueueUrl, MessageBody: JSON.stringify(step) }));
    requeued++;
  });
  return { ...drained, requeued };
}
