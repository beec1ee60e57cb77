/**
 * The frame every worker gets from shared/platform/handlers/, seen as Lambda
 * sees a worker: its event in, its partial batch response and its log lines
 * out. Each worker's own tests (test/webhooks, test/broadcasts, test/feedback,
 * test/sending/retry-queue.test.ts) cover what it does inside the frame.
 */
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { sqsEvent } from '#dev/local/queue-poller.ts';
import { knownHome, rememberHome } from '#shared/platform/dynamodb/regions.ts';
import { queueWorker, type QueueWorkerOptions } from '#shared/platform/handlers/queue-worker.ts';
import { scheduledJob } from '#shared/platform/handlers/scheduled-job.ts';
import { streamWorker } from '#shared/platform/handlers/stream-worker.ts';
import { log } from '#shared/platform/log.ts';
import { captureConsole } from '../support/console.ts';

const lines = captureConsole();
const entries = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);

/** The SQS event of these bodies, message ids `m0`, `m1`, … */
const batchOf = (...bodies: string[]) =>
  sqsEvent(
    bodies.map((body, index) => ({ MessageId: `m${index}`, ReceiptHandle: `r${index}`, Body: body, Attributes: { ApproximateReceiveCount: '3' } })),
    'arn:aws:sqs:us-east-1:000000000000:work',
    'us-east-1',
  );

type Note = { id: string; fail?: boolean; later?: boolean; waitMs?: number };
const noteBody = (note: Note) => JSON.stringify(note);
const decodeNote = (body: string): Note | undefined => {
  const note = JSON.parse(body) as Partial<Note>;
  return typeof note.id === 'string' ? (note as Note) : undefined;
};

/** A worker over notes: fails the ones marked `fail`, reports `later` ones as not done, and logs one line each after `waitMs`. */
function noteWorker(options: Partial<QueueWorkerOptions<Note>> = {}) {
  return queueWorker<Note>({
    name: 'note',
    order: 'concurrent',
    decode: decodeNote,
    unreadable: 'drop',
    each: async (note) => {
      await new Promise((resolve) => setTimeout(resolve, note.waitMs ?? 0));
      log.info('note handled', { note: note.id });
      if (note.fail) throw new Error(`note ${note.id} failed`);
      return note.later ? 'again' : 'done';
    },
    ...options,
  } as QueueWorkerOptions<Note>);
}

const failuresOf = (response: { batchItemFailures: { itemIdentifier: string }[] }) => response.batchItemFailures.map(({ itemIdentifier }) => itemIdentifier);

describe('queueWorker', () => {
  it('lists a message whose handling threw, and one not done yet, never the others', async () => {
    const worker = noteWorker();
    const response = await worker(batchOf(noteBody({ id: 'a' }), noteBody({ id: 'b', fail: true }), noteBody({ id: 'c', later: true }), noteBody({ id: 'd' })));

    expect(failuresOf(response)).toEqual(['m1', 'm2']);
    // The throw is logged with its message's id; the message not done yet is no error.
    expect(entries().filter((entry) => entry.level === 'error')).toEqual([
      expect.objectContaining({ message: 'note failed; received again later', messageId: 'm1', error: expect.objectContaining({ message: 'note b failed' }) }),
    ]);
  });

  it("logs every line of a message under the invocation's request id and that message's id, however the messages interleave", async () => {
    const worker = noteWorker({ logFields: (note) => ({ noteId: note.id }) });
    // The first waits longest, so the lines come out in the other order.
    await worker(batchOf(noteBody({ id: 'a', waitMs: 30 }), noteBody({ id: 'b', waitMs: 15 }), noteBody({ id: 'c' })), { awsRequestId: 'req-worker-1' });

    expect(entries().map(({ message, lambdaRequestId, messageId, noteId, note }) => ({ message, lambdaRequestId, messageId, noteId, note }))).toEqual([
      { message: 'note handled', lambdaRequestId: 'req-worker-1', messageId: 'm2', noteId: 'c', note: 'c' },
      { message: 'note handled', lambdaRequestId: 'req-worker-1', messageId: 'm1', noteId: 'b', note: 'b' },
      { message: 'note handled', lambdaRequestId: 'req-worker-1', messageId: 'm0', noteId: 'a', note: 'a' },
    ]);
  });

  it("handles 'sequential' messages one after the other in the batch's order, 'concurrent' ones all at once", async () => {
    const bodies = [noteBody({ id: 'a', waitMs: 30 }), noteBody({ id: 'b', waitMs: 15 }), noteBody({ id: 'c' })];
    const handledOrder = () => entries().map((entry) => entry.note);

    await noteWorker({ order: 'sequential' })(batchOf(...bodies));
    expect(handledOrder()).toEqual(['a', 'b', 'c']);

    lines.length = 0;
    await noteWorker({ order: 'concurrent' })(batchOf(...bodies));
    expect(handledOrder()).toEqual(['c', 'b', 'a']);
  });

  it("drops a body it cannot read with an error line, or keeps it to be received again, as the worker's policy says", async () => {
    const event = batchOf('not json', noteBody({ id: 'a' }), '{"no":"id"}');

    expect(failuresOf(await noteWorker({ unreadable: 'drop' })(event))).toEqual([]);
    expect(failuresOf(await noteWorker({ unreadable: 'again' })(event))).toEqual(['m0', 'm2']);

    const errors = entries().filter((entry) => entry.level === 'error');
    expect(errors.map(({ message, messageId, refusal }) => ({ message, messageId, refusal }))).toEqual([
      { message: 'note dropped: unreadable', messageId: 'm0', refusal: 'SyntaxError' },
      { message: 'note dropped: unreadable', messageId: 'm2', refusal: undefined },
      { message: 'note unreadable; received again later', messageId: 'm0', refusal: 'SyntaxError' },
      { message: 'note unreadable; received again later', messageId: 'm2', refusal: undefined },
    ]);
    // The body is never logged, not even through a parser's message.
    expect(lines.join('\n')).not.toContain('not json');
  });

  it("hands each message its receive count and receipt handle, and makes the batch's shared part once per invocation", async () => {
    const batches: { received: string[] }[] = [];
    const worker = queueWorker({
      name: 'note',
      order: 'concurrent',
      decode: decodeNote,
      unreadable: 'drop',
      perBatch: () => {
        const batch = { received: [] as string[] };
        batches.push(batch);
        return async (note, received) => void batch.received.push(`${note.id} ${received.receives} ${received.receiptHandle}`);
      },
    });

    await worker(batchOf(noteBody({ id: 'a' }), noteBody({ id: 'b' })));
    await worker(batchOf(noteBody({ id: 'c' })));

    expect(batches).toEqual([{ received: ['a 3 r0', 'b 3 r1'] }, { received: ['c 3 r0'] }]);
  });

  it('runs the batch in one region scope: a home learnt by one message is known to the next, and forgotten when the invocation ends', async () => {
    const seen: (string | undefined)[] = [];
    const worker = queueWorker({
      name: 'note',
      order: 'sequential',
      decode: decodeNote,
      unreadable: 'drop',
      each: async (note) => {
        seen.push(knownHome('acc_handlers1'));
        if (note.id === 'learns') rememberHome('acc_handlers1', 'eu-west-1');
      },
    });

    await worker(batchOf(noteBody({ id: 'learns' }), noteBody({ id: 'next' })));
    await worker(batchOf(noteBody({ id: 'next invocation' })));

    expect(seen).toEqual([undefined, 'eu-west-1', undefined]);
    expect(knownHome('acc_handlers1')).toBeUndefined();
  });
});

/** A stream record as Lambda hands it: a new item, or a removal (no new image). */
function streamRecord(sequenceNumber: string, newImage?: Record<string, { S: string }>): DynamoDBRecord {
  return {
    eventName: newImage ? 'INSERT' : 'REMOVE',
    dynamodb: { SequenceNumber: sequenceNumber, Keys: { pk: { S: 'x' }, sk: { S: sequenceNumber } }, ...(newImage ? { NewImage: newImage } : {}) },
  };
}

describe('streamWorker', () => {
  it('hands over the new items unmarshalled, in the region scope and log context of the invocation, and lists the ids answered', async () => {
    const seen: unknown[] = [];
    const worker = streamWorker(async (items) => {
      rememberHome('acc_handlers2', 'eu-west-1');
      seen.push(items, knownHome('acc_handlers2'));
      log.info('stream batch');
      return [items[1]!.id];
    });

    const response = await worker(
      { Records: [streamRecord('1', { pk: { S: 'a' } }), streamRecord('2'), streamRecord('3', { pk: { S: 'b' } })] },
      { awsRequestId: 'req-stream-1' },
    );

    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: '3' }] });
    expect(seen).toEqual([
      [
        { id: '1', item: { pk: 'a' } },
        { id: '3', item: { pk: 'b' } },
      ],
      'eu-west-1',
    ]);
    expect(knownHome('acc_handlers2')).toBeUndefined();
    expect(entries()).toContainEqual(expect.objectContaining({ message: 'stream batch', lambdaRequestId: 'req-stream-1' }));
  });
});

describe('scheduledJob', () => {
  it("runs the job in the invocation's region scope and log context, and answers what it returns", async () => {
    const job = scheduledJob(async () => {
      rememberHome('acc_handlers3', 'eu-west-1');
      log.info('job ran');
      return knownHome('acc_handlers3');
    });

    expect(await job({}, { awsRequestId: 'req-job-1' })).toBe('eu-west-1');
    expect(knownHome('acc_handlers3')).toBeUndefined();
    expect(entries()).toContainEqual(expect.objectContaining({ message: 'job ran', lambdaRequestId: 'req-job-1' }));
  });
});
