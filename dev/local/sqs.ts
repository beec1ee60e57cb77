/**
 * A small SQS stand-in for `npm start` and the tests: the JSON protocol
 * actions the SDK's SQSClient sends (CreateQueue, GetQueueUrl, SendMessage,
 * SendMessageBatch, ReceiveMessage, DeleteMessage, ChangeMessageVisibility,
 * GetQueueAttributes, PurgeQueue), in memory, with delays, visibility timeouts, receive
 * counts, message attributes (String and Number) and a redrive policy moving
 * a message to its dead-letter queue after maxReceiveCount receives, as SQS does.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { MAX_QUEUED_MESSAGE_BYTES } from '#shared/sending/retry-policy.ts';
import { listenLocally, type LocalService } from './service.ts';

/** The account id local queue URLs and ARNs carry (any value works; ElasticMQ and LocalStack use this one). */
const LOCAL_ACCOUNT = '000000000000';
const REGION = 'us-east-1';
const DEFAULT_VISIBILITY_SECONDS = 30;

/** A message attribute as SendMessage takes it and ReceiveMessage answers it. */
interface MessageAttribute {
  DataType: string;
  StringValue: string;
}

interface StoredMessage {
  messageId: string;
  body: string;
  attributes?: Record<string, MessageAttribute>;
  md5: string;
  sentAt: number;
  visibleAt: number;
  receives: number;
  firstReceivedAt?: number;
  /** The handle of the latest receive; older handles no longer change or delete it. */
  receiptHandle?: string;
}

interface Queue {
  name: string;
  url: string;
  arn: string;
  visibilitySeconds: number;
  redrive?: { deadLetterArn: string; maxReceiveCount: number };
  messages: StoredMessage[];
}

class SqsFault extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly queryCode = type,
  ) {
    super(message);
  }
}

const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

/** The queues of one stand-in and the actions on them; time comes from `now` so tests need not wait. */
/** The JSON-protocol actions the stand-in answers, each by the LocalQueues method of the same name. */
const ACTIONS = {
  CreateQueue: 'createQueue',
  GetQueueUrl: 'getQueueUrl',
  SendMessage: 'sendMessage',
  SendMessageBatch: 'sendMessageBatch',
  ReceiveMessage: 'receiveMessage',
  DeleteMessage: 'deleteMessage',
  ChangeMessageVisibility: 'changeMessageVisibility',
  GetQueueAttributes: 'getQueueAttributes',
  PurgeQueue: 'purgeQueue',
} as const satisfies Record<string, keyof LocalQueues>;

export class LocalQueues {
  private readonly queues = new Map<string, Queue>();

  constructor(
    private readonly baseUrl: () => string,
    private readonly now: () => number = Date.now,
  ) {}

  private byUrl(url: unknown): Queue {
    const name = typeof url === 'string' ? url.split('/').pop() : undefined;
    const queue = name === undefined ? undefined : this.queues.get(name);
    if (!queue) throw new SqsFault('QueueDoesNotExist', 'The specified queue does not exist.', 'AWS.SimpleQueueService.NonExistentQueue');
    return queue;
  }

  private byArn(arn: string): Queue | undefined {
    return [...this.queues.values()].find((queue) => queue.arn === arn);
  }

  createQueue(input: { QueueName?: string; Attributes?: Record<string, string> }): { QueueUrl: string } {
    const name = input.QueueName ?? '';
    if (!/^[A-Za-z0-9_-]{1,80}$/.test(name)) throw new SqsFault('InvalidParameterValue', 'Invalid queue name');
    const existing = this.queues.get(name);
    if (existing) return { QueueUrl: existing.url };
    const redrive = input.Attributes?.RedrivePolicy
      ? (JSON.parse(input.Attributes.RedrivePolicy) as { deadLetterTargetArn: string; maxReceiveCount: number | string })
      : undefined;
    this.queues.set(name, {
      name,
      url: `${this.baseUrl()}/${LOCAL_ACCOUNT}/${name}`,
      arn: `arn:aws:sqs:${REGION}:${LOCAL_ACCOUNT}:${name}`,
      visibilitySeconds: Number(input.Attributes?.VisibilityTimeout ?? DEFAULT_VISIBILITY_SECONDS),
      ...(redrive ? { redrive: { deadLetterArn: redrive.deadLetterTargetArn, maxReceiveCount: Number(redrive.maxReceiveCount) } } : {}),
      messages: [],
    });
    return { QueueUrl: this.queues.get(name)!.url };
  }

  getQueueUrl(input: { QueueName?: string }): { QueueUrl: string } {
    return { QueueUrl: this.byUrl(`/${input.QueueName ?? ''}`).url };
  }

  sendMessage(input: { QueueUrl?: string; MessageBody?: string; DelaySeconds?: number; MessageAttributes?: Record<string, MessageAttribute> }): {
    MessageId: string;
    MD5OfMessageBody: string;
  } {
    const queue = this.byUrl(input.QueueUrl);
    const body = input.MessageBody ?? '';
    if (body.length === 0) throw new SqsFault('MissingParameter', 'The request must contain the parameter MessageBody.');
    if (Buffer.byteLength(body, 'utf8') > MAX_QUEUED_MESSAGE_BYTES)
      throw new SqsFault(
        'InvalidParameterValue',
        `One or more parameters are invalid. Reason: Message must be shorter than ${MAX_QUEUED_MESSAGE_BYTES} bytes.`,
      );
    const delay = input.DelaySeconds ?? 0;
    if (!Number.isInteger(delay) || delay < 0 || delay > 900) throw new SqsFault('InvalidParameterValue', 'DelaySeconds must be from 0 to 900');
    for (const [name, attribute] of Object.entries(input.MessageAttributes ?? {})) {
      if (!/^(String|Number)(\..+)?$/.test(attribute.DataType ?? '') || typeof attribute.StringValue !== 'string')
        throw new SqsFault(
          'InvalidParameterValue',
          `The message attribute '${name}' must be a String or Number with a StringValue (the stand-in keeps no binary attributes).`,
        );
    }
    const now = this.now();
    const message: StoredMessage = {
      messageId: randomUUID(),
      body,
      md5: md5(body),
      ...(input.MessageAttributes && Object.keys(input.MessageAttributes).length > 0 ? { attributes: input.MessageAttributes } : {}),
      sentAt: now,
      visibleAt: now + delay * 1000,
      receives: 0,
    };
    queue.messages.push(message);
    return { MessageId: message.messageId, MD5OfMessageBody: message.md5 };
  }

  /** Each entry as SendMessage; a refused one is listed in `Failed`, the others are sent (SQS's partial success). */
  sendMessageBatch(input: { QueueUrl?: string; Entries?: { Id: string; MessageBody?: string; DelaySeconds?: number }[] }) {
    const entries = input.Entries ?? [];
    if (entries.length === 0 || entries.length > 10) throw new SqsFault('TooManyEntriesInBatchRequest', 'A batch holds 1 to 10 entries.');
    const Successful: { Id: string; MessageId: string; MD5OfMessageBody: string }[] = [];
    const Failed: { Id: string; Code: string; Message: string; SenderFault: boolean }[] = [];
    for (const entry of entries) {
      try {
        Successful.push({ Id: entry.Id, ...this.sendMessage({ QueueUrl: input.QueueUrl, MessageBody: entry.MessageBody, DelaySeconds: entry.DelaySeconds }) });
      } catch (error) {
        if (!(error instanceof SqsFault) || error.type === 'QueueDoesNotExist') throw error;
        Failed.push({ Id: entry.Id, Code: error.type, Message: error.message, SenderFault: true });
      }
    }
    return { Successful, Failed };
  }

  /** `MessageAttributeNames`: which attributes each message carries back (`All`, or names), as SQS returns only those asked for. */
  receiveMessage(input: { QueueUrl?: string; MaxNumberOfMessages?: number; VisibilityTimeout?: number; MessageAttributeNames?: string[] }) {
    const queue = this.byUrl(input.QueueUrl);
    const now = this.now();
    const most = Math.min(10, Math.max(1, input.MaxNumberOfMessages ?? 1));
    const visibility = input.VisibilityTimeout ?? queue.visibilitySeconds;
    const received: StoredMessage[] = [];
    for (const message of [...queue.messages]) {
      if (received.length === most) break;
      if (message.visibleAt > now) continue;
      // SQS moves a message past maxReceiveCount to the dead-letter queue instead of delivering it again.
      const deadLetter = queue.redrive && message.receives >= queue.redrive.maxReceiveCount ? this.byArn(queue.redrive.deadLetterArn) : undefined;
      if (deadLetter) {
        queue.messages.splice(queue.messages.indexOf(message), 1);
        deadLetter.messages.push({ ...message, visibleAt: now, receives: 0, receiptHandle: undefined });
        continue;
      }
      message.receives += 1;
      message.firstReceivedAt ??= now;
      message.visibleAt = now + visibility * 1000;
      message.receiptHandle = `${message.messageId}#${randomUUID()}`;
      received.push(message);
    }
    const asked = new Set(input.MessageAttributeNames ?? []);
    const attributesOf = (message: StoredMessage) =>
      Object.fromEntries(Object.entries(message.attributes ?? {}).filter(([name]) => asked.has('All') || asked.has('.*') || asked.has(name)));
    return {
      Messages: received.map((message) => {
        const attributes = attributesOf(message);
        return {
          MessageId: message.messageId,
          ReceiptHandle: message.receiptHandle!,
          MD5OfBody: message.md5,
          Body: message.body,
          Attributes: {
            ApproximateReceiveCount: String(message.receives),
            SentTimestamp: String(message.sentAt),
            ApproximateFirstReceiveTimestamp: String(message.firstReceivedAt),
          },
          ...(Object.keys(attributes).length > 0 ? { MessageAttributes: attributes } : {}),
        };
      }),
    };
  }

  private byHandle(queue: Queue, handle: unknown): StoredMessage | undefined {
    return queue.messages.find((message) => message.receiptHandle !== undefined && message.receiptHandle === handle);
  }

  deleteMessage(input: { QueueUrl?: string; ReceiptHandle?: string }): Record<string, never> {
    const queue = this.byUrl(input.QueueUrl);
    const message = this.byHandle(queue, input.ReceiptHandle);
    if (message) queue.messages.splice(queue.messages.indexOf(message), 1);
    return {};
  }

  changeMessageVisibility(input: { QueueUrl?: string; ReceiptHandle?: string; VisibilityTimeout?: number }): Record<string, never> {
    const queue = this.byUrl(input.QueueUrl);
    const message = this.byHandle(queue, input.ReceiptHandle);
    if (!message || message.visibleAt <= this.now())
      throw new SqsFault('MessageNotInflight', 'The message referred to is not in flight.', 'AWS.SimpleQueueService.MessageNotInflight');
    const seconds = input.VisibilityTimeout ?? 0;
    if (!Number.isInteger(seconds) || seconds < 0 || seconds > 43_200) throw new SqsFault('InvalidParameterValue', 'VisibilityTimeout must be from 0 to 43200');
    message.visibleAt = this.now() + seconds * 1000;
    return {};
  }

  purgeQueue(input: { QueueUrl?: string }): Record<string, never> {
    this.byUrl(input.QueueUrl).messages = [];
    return {};
  }

  getQueueAttributes(input: { QueueUrl?: string }): { Attributes: Record<string, string> } {
    const queue = this.byUrl(input.QueueUrl);
    const now = this.now();
    const count = (test: (message: StoredMessage) => boolean) => String(queue.messages.filter(test).length);
    return {
      Attributes: {
        QueueArn: queue.arn,
        ApproximateNumberOfMessages: count((message) => message.visibleAt <= now),
        ApproximateNumberOfMessagesNotVisible: count((message) => message.visibleAt > now && message.receives > 0),
        ApproximateNumberOfMessagesDelayed: count((message) => message.visibleAt > now && message.receives === 0),
      },
    };
  }

  /** Answers one JSON-protocol action, as `X-Amz-Target: AmazonSQS.<action>` names it. */
  handle(action: string, input: Record<string, any>): unknown {
    const method = Object.hasOwn(ACTIONS, action) ? ACTIONS[action as keyof typeof ACTIONS] : undefined;
    if (method === undefined) throw new SqsFault('UnsupportedOperation', `${action} is not supported by the local SQS stand-in`);
    return this[method](input);
  }
}

async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request as AsyncIterable<Buffer>) chunks.push(chunk);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

function reply(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const payload = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': randomUUID(), ...headers });
  response.end(payload);
}

/** Long polling: how often a waiting ReceiveMessage looks again. */
const WAIT_STEP_MS = 50;

export interface LocalSqs extends LocalService {
  queues: LocalQueues;
}

/** Starts the stand-in on 127.0.0.1; port 0 picks a free one. */
export async function startLocalSqs(options: { port: number; host?: string }): Promise<LocalSqs> {
  const host = options.host ?? '127.0.0.1';
  let endpoint = '';
  const queues = new LocalQueues(() => endpoint);
  const server = createServer((request, response) => {
    void (async () => {
      const action = String(request.headers['x-amz-target'] ?? '').replace(/^AmazonSQS\./, '');
      try {
        const input = await readJson(request);
        let output = queues.handle(action, input) as { Messages?: unknown[] };
        // WaitTimeSeconds: hold an empty receive until a message is visible or the wait ends.
        const waitUntil = Date.now() + Math.min(20, Number(input.WaitTimeSeconds ?? 0)) * 1000;
        // A caller that gave up (a local poller stopping) must not have a message received for it and lost until its visibility timeout.
        let abandoned = false;
        response.once('close', () => {
          abandoned = true;
        });
        while (action === 'ReceiveMessage' && output.Messages?.length === 0 && Date.now() < waitUntil && server.listening) {
          await new Promise((resolve) => setTimeout(resolve, WAIT_STEP_MS));
          if (abandoned) return;
          output = queues.handle(action, input) as { Messages?: unknown[] };
        }
        reply(response, 200, output);
      } catch (error) {
        const fault = error instanceof SqsFault ? error : new SqsFault('InvalidParameterValue', (error as Error).message);
        reply(response, 400, { __type: `com.amazonaws.sqs#${fault.type}`, message: fault.message }, { 'x-amzn-query-error': `${fault.queryCode};Sender` });
      }
    })();
  });
  const service = await listenLocally(server, options.port, host);
  endpoint = service.endpoint;
  return { endpoint, queues, stop: service.stop };
}

/** One SQS JSON-protocol call, for creating queues before any SDK client is configured. */
async function call(endpoint: string, action: string, input: unknown): Promise<Record<string, any>> {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': `AmazonSQS.${action}` },
    body: JSON.stringify(input),
  });
  if (!response.ok) throw new Error(`${action} failed: ${await response.text()}`);
  return (await response.json()) as Record<string, any>;
}

/**
 * A worker queue and its dead-letter queue as the stack makes them (lib/worker-queue.ts), created over the SQS API
 * (idempotent, like SQS's CreateQueue). `visibilityTimeoutSeconds`: how long a received message stays hidden (30 s
 * unless given; a test that wants a failed message back at once gives 0).
 */
export async function createRetryQueues(
  endpoint: string,
  name: string,
  maxReceiveCount: number,
  options: { visibilityTimeoutSeconds?: number } = {},
): Promise<{ queueUrl: string; deadLetterQueueUrl: string }> {
  const deadLetter = await call(endpoint, 'CreateQueue', { QueueName: `${name}-dlq` });
  const { Attributes } = await call(endpoint, 'GetQueueAttributes', { QueueUrl: deadLetter.QueueUrl, AttributeNames: ['QueueArn'] });
  const queue = await call(endpoint, 'CreateQueue', {
    QueueName: name,
    Attributes: {
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: Attributes.QueueArn, maxReceiveCount }),
      ...(options.visibilityTimeoutSeconds === undefined ? {} : { VisibilityTimeout: String(options.visibilityTimeoutSeconds) }),
    },
  });
  return { queueUrl: queue.QueueUrl, deadLetterQueueUrl: deadLetter.QueueUrl };
}

/** A queue with no redrive policy, as a test's stand-in for one a worker or operator alone reads. */
export async function createQueue(endpoint: string, name: string): Promise<string> {
  return (await call(endpoint, 'CreateQueue', { QueueName: name })).QueueUrl as string;
}
