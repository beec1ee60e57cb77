/**
 * A real webhook receiver (node:http on a free port of 127.0.0.1), the
 * worker's webhook queues on the local SQS stand-in (made by
 * test/support/setup.ts, emptied after each file), and the table's stream
 * read as the fan-out's event source reads it.
 */
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, afterEach, expect } from 'vitest';
import type { DynamoDBRecord } from 'aws-lambda';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { createQueue } from '#dev/local/sqs.ts';
import { invokeWithRecords, StreamReader, type StreamHandler } from '#dev/local/stream-poller.ts';
import { handler as fanOutHandler } from '#functions/events/fan-out.ts';
import { config } from '#shared/platform/config.ts';
import { sqs } from '#shared/sending/retry-queue.ts';
import { PostlaneError } from '#shared/platform/errors.ts';
import { errorReply } from '#shared/platform/http/error-envelope.ts';
import { deliverWebhook } from '#shared/webhooks/deliver.ts';
import { decodeDeliveryMessage, WEBHOOK_LANES, type DeliveryMessage, type WebhookLane } from '#shared/webhooks/queue.ts';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** How the receiver answers its n-th request (from 0): a status, or a function that writes the response itself. */
export type Responder = (request: ReceivedRequest, index: number) => number | ((response: ServerResponse) => void);

export interface Receiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  stop(): Promise<void>;
}

export async function startReceiver(respond: Responder = () => 200): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const received = {
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      requests.push(received);
      const answer = respond(received, requests.length - 1);
      if (typeof answer === 'number') response.writeHead(answer).end();
      else answer(response);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    port,
    requests,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Starts receivers for the test that asks, each stopped once the test ends: `const receiver = receiversPerTest()`. */
export function receiversPerTest(): (respond?: Responder) => Promise<Receiver> {
  const started: Receiver[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((receiver) => receiver.stop()));
  });
  return async (respond) => {
    const receiver = await startReceiver(respond);
    started.push(receiver);
    return receiver;
  };
}

/**
 * Starts receivers that stay up until the file ends: for tests that run
 * concurrently, where one test's end must not stop another's receivers.
 */
export function receiversOfFile(): (respond?: Responder) => Promise<Receiver> {
  const started: Receiver[] = [];
  afterAll(async () => {
    await Promise.all(started.splice(0).map((receiver) => receiver.stop()));
  });
  return async (respond) => {
    const receiver = await startReceiver(respond);
    started.push(receiver);
    return receiver;
  };
}

/**
 * Runs `read` after the reads before it have ended: concurrent tests share
 * the stream's iterators and the queues, and a message one test's read holds
 * (received, not yet set aside for its account) would be missed by another's.
 */
function inTurn(): <T>(read: () => Promise<T>) => Promise<T> {
  let last: Promise<unknown> = Promise.resolve();
  return (read) => {
    const next = last.then(read, read);
    last = next.catch(() => undefined);
    return next;
  };
}

const streamInTurn = inTurn();
const queuesInTurn = inTurn();

/** Creates the queue the environment names (the stand-in answers its URL): a file that names one of its own in `vi.hoisted`. */
export async function createWebhookQueue(): Promise<void> {
  const url = config.WEBHOOK_QUEUE_URL!;
  const created = await createQueue(config.SQS_ENDPOINT!, url.split('/').pop()!);
  if (created !== url) throw new Error(`WEBHOOK_QUEUE_URL ${url} is not the queue the stand-in made (${created})`);
}

let stream: StreamReader | undefined;
const streamed = new Map<string, DynamoDBRecord[]>();

/**
 * Starts reading the table's stream (what is written from now on); call it
 * at the top of the file, before the tests write. Every test file shares the
 * table, so each reads every file's records and keeps only its own accounts'.
 */
export async function openEventStream(): Promise<void> {
  stream = await StreamReader.open(config.DYNAMODB_ENDPOINT!, config.TABLE_NAME, config.AWS_REGION);
}

/** The stream's new event records of one account, taken: they are handed to nobody else. */
export function takeStreamRecords(accountId: string): Promise<DynamoDBRecord[]> {
  const reader = stream;
  if (!reader) throw new Error('openEventStream() first');
  return streamInTurn(async () => {
    for (const record of await reader.read()) {
      const owner = String(record.dynamodb?.Keys?.pk?.S).split('#')[0]!;
      streamed.set(owner, [...(streamed.get(owner) ?? []), record]);
    }
    const mine = streamed.get(accountId) ?? [];
    streamed.delete(accountId);
    return mine;
  });
}

/** The stream's records as the fan-out function's core takes them (`fanOutStreamedItems`, at any `now`). */
export function itemsOf(records: readonly DynamoDBRecord[]) {
  return records.map((record) => ({
    id: record.dynamodb!.SequenceNumber!,
    item: unmarshall(record.dynamodb!.NewImage as Record<string, AttributeValue>),
  }));
}

/**
 * Runs the fan-out function over the account's new events, as the stream's
 * event source would: at once, with no polling, so tests never sleep.
 * Answers the records it asked to be handed again.
 */
export async function fanOutEvents(accountId: string, handler: StreamHandler = fanOutHandler as StreamHandler): Promise<DynamoDBRecord[]> {
  const records = await takeStreamRecords(accountId);
  return records.length === 0 ? [] : invokeWithRecords('events/fan-out', handler, records);
}

const waiting = new Map<string, { lane: WebhookLane; message: DeliveryMessage }[]>();

/** Each lane's queue in this file (the slow one is made per file by test/support/setup.ts). */
export const laneQueueUrls = (): Record<WebhookLane, string> => ({ normal: config.WEBHOOK_QUEUE_URL!, slow: config.WEBHOOK_SLOW_QUEUE_URL! });

/**
 * The visible queue messages of one account's deliveries, taken off both
 * lanes' queues with the lane each was on, once its new events have been
 * fanned out (when the file opened the stream); other accounts' wait for
 * their own test.
 */
export async function takeLaneMessages(accountId: string): Promise<{ lane: WebhookLane; message: DeliveryMessage }[]> {
  if (stream) expect(await fanOutEvents(accountId)).toEqual([]);
  return queuesInTurn(async () => {
    for (const lane of WEBHOOK_LANES) {
      const QueueUrl = laneQueueUrls()[lane];
      for (;;) {
        const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
        if (Messages.length === 0) break;
        for (const message of Messages) {
          await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: message.ReceiptHandle }));
          const decoded = decodeDeliveryMessage(message.Body!);
          waiting.set(decoded.accountId, [...(waiting.get(decoded.accountId) ?? []), { lane, message: decoded }]);
        }
      }
    }
    const mine = waiting.get(accountId) ?? [];
    waiting.delete(accountId);
    return mine;
  });
}

/** The account's queued delivery messages, whichever lane they are on (takeLaneMessages). */
export async function takeMessages(accountId: string): Promise<DeliveryMessage[]> {
  return (await takeLaneMessages(accountId)).map(({ message }) => message);
}

/** Runs a message and, while the worker asks for another, the next one at the time it is due (no waiting). */
export async function walk(message: DeliveryMessage, until: (step: DeliveryMessage) => boolean = () => false) {
  let current: DeliveryMessage | undefined = message;
  const steps: DeliveryMessage[] = [];
  while (current && !until(current)) {
    steps.push(current);
    const next = await deliverWebhook(current, current.notBefore);
    current = next.action === 'enqueue' ? next.message : undefined;
  }
  return { steps, stopped: current };
}

/** The error envelope a refused call would be answered with: `expect(await refusal(call())).toMatchObject({status: 404, ...})`. */
export async function refusal(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(PostlaneError);
  return errorReply(error as PostlaneError);
}
