import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  QueueDoesNotExist,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { backoffSeconds, MAX_DELAY_SECONDS } from '#shared/sending/retry-policy.ts';
import { keptMessages, sqsEvent, startQueuePoller } from '#dev/local/queue-poller.ts';
import { createRetryQueues, LocalQueues, startLocalSqs } from '#dev/local/sqs.ts';
import { eventually } from '../support/eventually.ts';

/** Queues on a clock the test moves. */
function queuesAt() {
  const clock = { now: 1_000_000 };
  const queues = new LocalQueues(
    () => 'http://sqs.local',
    () => clock.now,
  );
  const { QueueUrl: deadLetterUrl } = queues.createQueue({ QueueName: 'work-dlq' });
  const { QueueUrl: url } = queues.createQueue({
    QueueName: 'work',
    Attributes: {
      VisibilityTimeout: '30',
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: 'arn:aws:sqs:us-east-1:000000000000:work-dlq', maxReceiveCount: 2 }),
    },
  });
  const receive = (queueUrl = url) => queues.receiveMessage({ QueueUrl: queueUrl, MaxNumberOfMessages: 10 }).Messages;
  const advance = (seconds: number) => {
    clock.now += seconds * 1000;
  };
  return { queues, url, deadLetterUrl, receive, advance };
}

describe('the local SQS stand-in', () => {
  it('keeps a delayed message back until its delay has passed', () => {
    const { queues, url, receive, advance } = queuesAt();
    queues.sendMessage({ QueueUrl: url, MessageBody: 'later', DelaySeconds: 10 });

    const early = receive();
    advance(10);
    const onTime = receive();

    expect(early).toEqual([]);
    expect(onTime.map((message) => message.Body)).toEqual(['later']);
  });

  it('hides a received message for the visibility timeout, counts receives, and returns it after', () => {
    const { queues, url, receive, advance } = queuesAt();
    queues.sendMessage({ QueueUrl: url, MessageBody: 'job' });

    const first = receive();
    const hidden = receive();
    advance(30);
    const again = receive();

    expect(first[0]!.Attributes.ApproximateReceiveCount).toBe('1');
    expect(hidden).toEqual([]);
    expect(again[0]!.Attributes.ApproximateReceiveCount).toBe('2');
    expect(again[0]!.ReceiptHandle).not.toBe(first[0]!.ReceiptHandle);
  });

  it("sets a received message's next visibility with ChangeMessageVisibility", () => {
    const { queues, url, receive, advance } = queuesAt();
    queues.sendMessage({ QueueUrl: url, MessageBody: 'job' });
    const [message] = receive();

    queues.changeMessageVisibility({ QueueUrl: url, ReceiptHandle: message!.ReceiptHandle, VisibilityTimeout: 5 });
    advance(4);
    const before = receive();
    advance(1);
    const after = receive();

    expect(before).toEqual([]);
    expect(after.map((received) => received.MessageId)).toEqual([message!.MessageId]);
  });

  it('deletes by the latest receipt handle only', () => {
    const { queues, url, receive, advance } = queuesAt();
    queues.sendMessage({ QueueUrl: url, MessageBody: 'job' });
    const [stale] = receive();
    advance(30);
    const [current] = receive();
    const count = () => queues.getQueueAttributes({ QueueUrl: url }).Attributes.ApproximateNumberOfMessagesNotVisible;

    queues.deleteMessage({ QueueUrl: url, ReceiptHandle: stale!.ReceiptHandle });
    const afterStale = count();
    queues.deleteMessage({ QueueUrl: url, ReceiptHandle: current!.ReceiptHandle });

    expect(current!.MessageId).toBe(stale!.MessageId);
    expect(afterStale).toBe('1');
    expect(count()).toBe('0');
    advance(30);
    expect(receive()).toEqual([]);
  });

  it('moves a message received maxReceiveCount times to the dead-letter queue instead of delivering it again', () => {
    const { queues, url, deadLetterUrl, receive, advance } = queuesAt();
    queues.sendMessage({ QueueUrl: url, MessageBody: 'poison' });
    receive();
    advance(30);
    receive();
    advance(30);

    const third = receive();

    expect(third).toEqual([]);
    expect(queues.getQueueAttributes({ QueueUrl: deadLetterUrl }).Attributes.ApproximateNumberOfMessages).toBe('1');
    expect(receive(deadLetterUrl).map((message) => message.Body)).toEqual(['poison']);
  });

  it('speaks the SQS JSON protocol to the SDK client, MD5 checks and errors included', async () => {
    const server = await startLocalSqs({ port: 0 });
    afterAll(server.stop);
    const client = new SQSClient({ region: 'us-east-1', endpoint: server.endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    const { queueUrl } = await createRetryQueues(server.endpoint, 'protocol', 3);

    const sent = await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'héllo ✉' }));
    const { Messages = [] } = await client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MessageSystemAttributeNames: ['All'] }));
    await client.send(new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl, ReceiptHandle: Messages[0]!.ReceiptHandle, VisibilityTimeout: 0 }));
    const { Messages: again = [] } = await client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl }));
    await client.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: again[0]!.ReceiptHandle }));
    const { Messages: none = [] } = await client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl }));
    const missing = client.send(new SendMessageCommand({ QueueUrl: `${server.endpoint}/000000000000/nope`, MessageBody: 'x' }));

    expect(Messages.map((message) => [message.MessageId, message.Body, message.Attributes?.ApproximateReceiveCount])).toEqual([
      [sent.MessageId, 'héllo ✉', '1'],
    ]);
    expect(again[0]!.MessageId).toBe(sent.MessageId);
    expect(none).toEqual([]);
    await expect(missing).rejects.toBeInstanceOf(QueueDoesNotExist);
  });
});

describe('the local event source', () => {
  const event = sqsEvent(
    [
      { MessageId: 'a', ReceiptHandle: 'ra', Body: '1', Attributes: { ApproximateReceiveCount: '2' } },
      { MessageId: 'b', ReceiptHandle: 'rb', Body: '2' },
    ],
    'arn:aws:sqs:us-east-1:000000000000:work',
    'us-east-1',
  );

  it('builds the SQS event Lambda passes, one record per message', () => {
    expect(
      event.Records.map((record) => [record.messageId, record.receiptHandle, record.body, record.attributes.ApproximateReceiveCount, record.eventSource]),
    ).toEqual([
      ['a', 'ra', '1', '2', 'aws:sqs'],
      ['b', 'rb', '2', '1', 'aws:sqs'],
    ]);
  });

  it('keeps the listed failures, nothing on an empty answer, and the whole batch for an id not in it', () => {
    expect(keptMessages(event, { batchItemFailures: [{ itemIdentifier: 'b' }] })).toEqual(new Set(['b']));
    expect(keptMessages(event, { batchItemFailures: [] })).toEqual(new Set());
    expect(keptMessages(event, undefined)).toEqual(new Set());
    expect(keptMessages(event, { batchItemFailures: [{ itemIdentifier: 'zzz' }] })).toEqual(new Set(['a', 'b']));
  });

  it('runs up to maxConcurrency batches at once, as the event source maximum allows, and no more', async () => {
    const server = await startLocalSqs({ port: 0 });
    afterAll(server.stop);
    const client = new SQSClient({ region: 'us-east-1', endpoint: server.endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    const { queueUrl } = await createRetryQueues(server.endpoint, 'capped', 3);
    for (let index = 0; index < 8; index++) await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: String(index) }));
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const running = { now: 0, most: 0, done: 0 };
    const poller = await startQueuePoller({
      client,
      queueUrl,
      name: 'test/capped',
      batchSize: 1,
      maxConcurrency: 3,
      region: 'us-east-1',
      handler: async () => {
        running.now++;
        running.most = Math.max(running.most, running.now);
        await gate;
        running.now--;
        running.done++;
        return { batchItemFailures: [] };
      },
    });

    const held = await eventually(
      async () => running.now,
      (now) => now === 3,
    );
    open();
    await eventually(
      async () => running.done,
      (done) => done === 8,
    );
    await poller.stop();

    expect(held).toBe(3);
    expect(running).toEqual({ now: 0, most: 3, done: 8 });
  });

  it('stops without waiting out its long poll, and leaves a message sent next to be received by the next reader', async () => {
    const server = await startLocalSqs({ port: 0 });
    onTestFinished(server.stop);
    const client = new SQSClient({ region: 'us-east-1', endpoint: server.endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    const { queueUrl } = await createRetryQueues(server.endpoint, 'stopping', 3);
    const poller = await startQueuePoller({ client, queueUrl, name: 'test/stopping', batchSize: 1, region: 'us-east-1', handler: async () => undefined });
    // Its first receive is waiting on the empty queue.
    await new Promise((resolve) => setTimeout(resolve, 100));

    const stopping = Date.now();
    await poller.stop();
    const tookMs = Date.now() - stopping;
    await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'after' }));
    // Time for the abandoned receive, had it gone on, to look again (every 50 ms) and take it.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const { Messages = [] } = await client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl }));

    // The long poll is a second: a stop that waited it out would take most of it.
    expect(tookMs).toBeLessThan(500);
    expect(Messages.map((message) => message.Body)).toEqual(['after']);
  });
});

describe('the retry backoff', () => {
  it("doubles from the base per failed attempt, up to SQS's longest delay", () => {
    expect([1, 2, 3, 4, 5].map((attempts) => backoffSeconds(attempts, 10))).toEqual([10, 20, 40, 80, 160]);
    expect(backoffSeconds(20, 10)).toBe(MAX_DELAY_SECONDS);
    expect(backoffSeconds(3, 0)).toBe(0);
  });
});
