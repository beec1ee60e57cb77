/**
 * What Lambda's SQS event source mapping does, for `npm start` and the
 * tests: receive a batch, invoke the worker with the SQS event shape, and
 * delete the messages it settled. With ReportBatchItemFailures, the ones it
 * lists stay on the queue; a throw, or a listed id that is not in the batch,
 * keeps the whole batch, as Lambda does. At most `maxConcurrency` batches are
 * in the worker at once, as the event source's MaximumConcurrency allows, and
 * no message is received while they all are: it waits in the queue.
 */
import { DeleteMessageCommand, GetQueueAttributesCommand, ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { log } from '#shared/platform/log.ts';
import { lambdaContext } from './http-event.ts';
import { invokedAs } from './invocation.ts';

export type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | undefined>;

export interface QueuePollerOptions {
  client: Pick<SQSClient, 'send'>;
  queueUrl: string;
  /** Module under functions/, for the Lambda context's names. */
  name: string;
  handler: SqsHandler;
  /** Messages per invocation (the event source's BatchSize). */
  batchSize: number;
  /** Invocations at once (the event source's MaximumConcurrency, the same constant the stack declares it with); 1 unless given. */
  maxConcurrency?: number;
  region: string;
}

export interface QueuePoller {
  stop(): Promise<void>;
}

/** The SQS event Lambda builds for a batch of received messages. */
export function sqsEvent(messages: readonly Message[], queueArn: string, region: string): SQSEvent {
  return {
    Records: messages.map((message) => ({
      messageId: message.MessageId!,
      receiptHandle: message.ReceiptHandle!,
      body: message.Body ?? '',
      attributes: {
        ApproximateReceiveCount: message.Attributes?.ApproximateReceiveCount ?? '1',
        SentTimestamp: message.Attributes?.SentTimestamp ?? '',
        SenderId: '000000000000',
        ApproximateFirstReceiveTimestamp: message.Attributes?.ApproximateFirstReceiveTimestamp ?? '',
      },
      messageAttributes: {},
      md5OfBody: message.MD5OfBody ?? '',
      eventSource: 'aws:sqs',
      eventSourceARN: queueArn,
      awsRegion: region,
    })),
  };
}

/** The message ids to keep: none when the worker settled all, every one when its answer names a message it was not given. */
export function keptMessages(event: SQSEvent, response: SQSBatchResponse | undefined): Set<string> {
  const ids = new Set(event.Records.map((record) => record.messageId));
  const listed = (response?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier);
  return listed.every((id) => ids.has(id)) ? new Set(listed) : ids;
}

/** Polls until stopped; a failed receive (the queue restarting) is logged and tried again a second later. */
export async function startQueuePoller(options: QueuePollerOptions): Promise<QueuePoller> {
  const { client, queueUrl } = options;
  const maxConcurrency = options.maxConcurrency ?? 1;
  if (!Number.isInteger(maxConcurrency) || maxConcurrency < 1) throw new Error(`maxConcurrency must be a whole number of at least 1, got ${maxConcurrency}`);
  const { Attributes } = await client.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }));
  const queueArn = Attributes?.QueueArn ?? queueUrl;
  let stopped = false;
  // Stopping cancels the receive in progress rather than waiting out its long poll.
  const stopping = new AbortController();
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const inFlight = new Set<Promise<void>>();

  /** One invocation with the batch, then the deletes of what it settled. */
  const invoke = async (messages: Message[]): Promise<void> => {
    const event = sqsEvent(messages, queueArn, options.region);
    let kept: Set<string>;
    try {
      kept = keptMessages(event, await invokedAs(options.name, options.handler)(event, lambdaContext(options.name)));
    } catch (error) {
      log.error('local queue poller: handler failed', { handler: options.name, error });
      kept = new Set(event.Records.map((record) => record.messageId));
    }
    for (const record of event.Records.filter((settled) => !kept.has(settled.messageId))) {
      // Not deleted: received again after its visibility timeout, as in AWS.
      await client
        .send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: record.receiptHandle }))
        .catch((error: unknown) => log.error('local queue poller: delete failed', { queueUrl, error }));
    }
  };

  const loop = (async () => {
    while (!stopped) {
      if (inFlight.size >= maxConcurrency) {
        await Promise.race(inFlight);
        continue;
      }
      let messages: Message[];
      try {
        ({ Messages: messages = [] } = await client.send(
          new ReceiveMessageCommand({
            QueueUrl: queueUrl,
            MaxNumberOfMessages: options.batchSize,
            WaitTimeSeconds: 1,
            MessageSystemAttributeNames: ['All'],
          }),
          { abortSignal: stopping.signal },
        ));
      } catch (error) {
        if (stopped) break;
        log.error('local queue poller: receive failed', { queueUrl, error });
        await pause(1_000);
        continue;
      }
      if (messages.length === 0) continue;
      const invocation = invoke(messages).finally(() => inFlight.delete(invocation));
      inFlight.add(invocation);
    }
    await Promise.all(inFlight);
  })();

  return {
    async stop() {
      stopped = true;
      stopping.abort();
      await loop;
    },
  };
}
