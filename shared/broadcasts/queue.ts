/**
 * The broadcast queue: the engine's steps as SQS messages. A `plan` step
 * snapshots one page of the audience into batches and queues them (and the
 * next page's step); a `batch` step sends one batch. Each step is safe to run
 * twice, so SQS's at-least-once delivery and Lambda's retries change nothing.
 */
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import * as v from 'valibot';
import { config } from '#shared/platform/config.ts';
import { sqs } from '#shared/sending/retry-queue.ts';

const broadcastRef = { accountId: v.string(), broadcastId: v.string() };

/** A scheduled broadcast's time came (EventBridge Scheduler puts this step on the queue). */
export const StartStep = v.object({
  kind: v.literal('start'),
  ...broadcastRef,
  /**
   * The `scheduledAt` its schedule was made for: the step starts the broadcast only while it is still scheduled
   * for that time. Absent in the steps of schedules made before it was carried.
   */
  scheduledAt: v.optional(v.string()),
});
export type StartStep = v.InferOutput<typeof StartStep>;

export const BroadcastStep = v.variant('kind', [
  StartStep,
  v.object({
    kind: v.literal('plan'),
    ...broadcastRef,
    /** The last contact id the previous page ended with. */
    after: v.optional(v.string()),
    /** Number of the first batch this page writes, and recipients planned before it. */
    batch: v.number(),
    recipients: v.number(),
    /** When the pages planned before would all be sent at the broadcast's rate (epoch ms): the planner keeps about a minute ahead of it. */
    due: v.optional(v.number()),
  }),
  v.object({
    kind: v.literal('batch'),
    ...broadcastRef,
    batch: v.number(),
    /** SES throttled this many attempts of the batch in a row: the next one waits longer (shared/broadcasts/pacing.ts). */
    throttled: v.optional(v.number()),
    /** Messages an earlier attempt left unsent: what the next window is reserved for, rather than the whole batch. */
    left: v.optional(v.number()),
    /**
     * The window already reserved for this batch, carried while the step
     * waits on the queue for it, so that the batch does not reserve twice:
     * its message count and, per bucket, the span [start, end] (epoch ms).
     */
    window: v.optional(v.object({ count: v.number(), spans: v.array(v.tuple([v.number(), v.number()])) })),
  }),
]);
export type BroadcastStep = v.InferOutput<typeof BroadcastStep>;

/** SQS's most messages per SendMessageBatch. */
const SEND_BATCH_LIMIT = 10;
/** SQS's longest DelaySeconds. */
export const MAX_STEP_DELAY_SECONDS = 900;

export interface BroadcastQueue {
  /** Puts the steps on the queue, each first visible after `delaySeconds`. */
  enqueue(steps: readonly BroadcastStep[], delaySeconds?: number): Promise<void>;
}

export function sqsBroadcastQueue(queueUrl: string, client: Pick<SQSClient, 'send'> = sqs): BroadcastQueue {
  return {
    async enqueue(steps, delaySeconds = 0) {
      for (let start = 0; start < steps.length; start += SEND_BATCH_LIMIT) {
        const entries = steps.slice(start, start + SEND_BATCH_LIMIT).map((step, index) => ({
          Id: String(index),
          MessageBody: JSON.stringify(step),
          DelaySeconds: Math.min(MAX_STEP_DELAY_SECONDS, Math.max(0, Math.ceil(delaySeconds))),
        }));
        const { Failed = [] } = await client.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
        if (Failed.length > 0) throw new Error(`SQS refused ${Failed.length} broadcast steps: ${Failed[0]!.Code}`);
      }
    },
  };
}

/** The deployment's broadcast queue; unset (a deployment without broadcasts), starting one fails loudly. */
export function broadcastQueue(): BroadcastQueue {
  if (!config.BROADCAST_QUEUE_URL) throw new Error('BROADCAST_QUEUE_URL is not set: broadcasts need their queue');
  return sqsBroadcastQueue(config.BROADCAST_QUEUE_URL);
}

/** A step as the worker receives it; undefined for a body that is none (it is dropped, not retried). */
export function decodeStep(body: string): BroadcastStep | undefined {
  try {
    const parsed = v.safeParse(BroadcastStep, JSON.parse(body));
    return parsed.success ? parsed.output : undefined;
  } catch {
    return undefined;
  }
}
