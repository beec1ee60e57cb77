/**
 * The one frame of every function an SQS event source invokes with
 * ReportBatchItemFailures (the retry, broadcast, feedback and webhook
 * workers), as the endpoint factory is every route's: a worker states how its
 * messages are read and what it does with one; the factory runs the batch in
 * the invocation's frame (invocation.ts), each message in a log context of
 * its own, and turns each message's outcome into the partial batch response.
 *
 * Only the messages listed are received again, never the whole batch: one
 * message's failure is never another's (Powertools' BatchProcessor does the
 * same). The invocation itself fails only when the batch cannot be started
 * (`perBatch` throws: a queue the worker needs is not configured), and then
 * Lambda hands the whole batch again.
 */
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { addLogContext, log, withLogContext } from '#shared/platform/log.ts';
import { inInvocation, invocationLogFields, type InvocationContext } from './invocation.ts';

/** One receive of one queue message, as the event source hands it over. */
export interface QueueMessage {
  /** The queue's id of the message: what a partial batch failure names, and what every line logged while it is handled carries. */
  messageId: string;
  body: string;
  /** How often the queue has handed the message out, this time included (SQS's ApproximateReceiveCount). */
  receives: number;
  /** What the queue needs to change this receive's visibility (to reschedule it). */
  receiptHandle: string;
}

/** What became of one message: settled (the event source deletes it), or to be received again after its visibility timeout. */
export type Settled = 'done' | 'again';

/**
 * Handles one decoded message. Returning `'again'` lists it without an error
 * (not failed, not finished either: a step whose batch another attempt holds,
 * a send rescheduled); a throw lists it with one; anything else settles it.
 */
// biome-ignore lint/suspicious/noConfusingVoidType: an async handler that returns nothing settles its message; with `undefined` each would end in `return undefined`
export type EachMessage<T> = (message: T, received: QueueMessage) => Promise<Settled | void>;

interface QueueWorkerBase<T> {
  /** What one message is, for the worker's log lines: `'broadcast step'`. */
  name: string;
  /** `'sequential'`: one message after the other, in the batch's order; `'concurrent'`: all at once, so a slow one holds only itself. */
  order: 'sequential' | 'concurrent';
  /** The message a body holds; undefined, or a throw, when it holds none: `unreadable` says what becomes of it. */
  decode: (body: string) => T | undefined;
  /**
   * What becomes of a body `decode` refuses, whichever worker reads it:
   * `'drop'`, logged and deleted (this code never wrote it, and reading it
   * again would change nothing); `'again'`, logged and received again until
   * the queue moves it to its dead-letter queue, where an operator reads it.
   */
  unreadable: 'drop' | 'again';
  /** Fields of the decoded message that every line logged while it is handled carries (its account, its broadcast). */
  logFields?: (message: T) => Record<string, unknown>;
}

/**
 * `each` handles one message; `perBatch` makes that handler once per
 * invocation, for what a batch's messages share (one clock reading, one pace,
 * one turn at a time for large messages) and for what must hold before any
 * is handled.
 */
export type QueueWorkerOptions<T> = QueueWorkerBase<T> & ({ each: EachMessage<T>; perBatch?: never } | { perBatch: () => EachMessage<T>; each?: never });

export type QueueWorker = (event: SQSEvent, context?: InvocationContext) => Promise<SQSBatchResponse>;

/**
 * `export const handler = queueWorker({ name: 'broadcast step', order: 'sequential', decode: decodeStep, unreadable: 'drop', each: async (step) => ((await runStep(step, new Date())).settled ? 'done' : 'again') })`
 */
export function queueWorker<T>(options: QueueWorkerOptions<T>): QueueWorker {
  return (event, context) =>
    inInvocation(context, async () => {
      const each = options.each ?? options.perBatch();
      const settle = (record: SQSRecord) =>
        withLogContext({ ...invocationLogFields(context), messageId: record.messageId }, () => settleMessage(options, each, receivedMessage(record)));
      const outcomes: Settled[] = [];
      if (options.order === 'concurrent') outcomes.push(...(await Promise.all(event.Records.map(settle))));
      else for (const record of event.Records) outcomes.push(await settle(record));
      return {
        batchItemFailures: event.Records.filter((_record, index) => outcomes[index] === 'again').map((record) => ({ itemIdentifier: record.messageId })),
      };
    });
}

function receivedMessage(record: SQSRecord): QueueMessage {
  return {
    messageId: record.messageId,
    body: record.body,
    receives: Number(record.attributes.ApproximateReceiveCount),
    receiptHandle: record.receiptHandle,
  };
}

async function settleMessage<T>(options: QueueWorkerBase<T>, each: EachMessage<T>, received: QueueMessage): Promise<Settled> {
  let message: T | undefined;
  let refusal: string | undefined;
  try {
    message = options.decode(received.body);
  } catch (error) {
    // Its name only: a parser's message can quote the body, and bodies are never logged.
    refusal = error instanceof Error ? error.name : 'unknown';
  }
  if (message === undefined) {
    if (options.unreadable === 'drop') {
      log.error(`${options.name} dropped: unreadable`, { refusal });
      return 'done';
    }
    log.error(`${options.name} unreadable; received again later`, { refusal });
    return 'again';
  }
  if (options.logFields) addLogContext(options.logFields(message));
  try {
    return (await each(message, received)) ?? 'done';
  } catch (error) {
    log.error(`${options.name} failed; received again later`, { error });
    return 'again';
  }
}
