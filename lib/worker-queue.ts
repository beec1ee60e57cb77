import { Duration } from 'aws-cdk-lib';
import type { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { postlaneAlarm } from './alarms.ts';
import { type DeclaredFunction, type DeclaredFunctionResources, declaredFunctionProps, EndpointFunction } from './endpoint-function.ts';
import { acknowledgeFindings } from './nag.ts';
import { DEAD_LETTER_RETENTION, QUEUE_RETENTION } from './queue-retention.ts';

/**
 * What SQS grants an event source's function: receive, delete, change
 * visibility (the worker's backoff), and read the queue's URL and attributes.
 */
export const WORKER_QUEUE_ACTIONS = [
  'sqs:ReceiveMessage',
  'sqs:ChangeMessageVisibility',
  'sqs:GetQueueUrl',
  'sqs:DeleteMessage',
  'sqs:GetQueueAttributes',
] as const;

/**
 * AWS's advice for an SQS event source: a visibility timeout of at least six
 * times the function's timeout, so a batch still in flight (Lambda retrying a
 * throttled invocation) is not handed to a second worker.
 */
const VISIBILITY_PER_FUNCTION_TIMEOUT = 6;

/**
 * Lambda's concurrent executions per account and region by default; a new
 * account may start with less (request the quota before launch). Every
 * function of the region draws on it, the API's with the workers'.
 */
export const REGION_CONCURRENCY = 1_000;

/**
 * The most the worker queues' event sources may run at once, all caps
 * together: a tenth of the region's concurrency, so that backlogs on every
 * queue at once still leave nine tenths to the API (test/infra/concurrency.test.ts,
 * docs/operations.md "Concurrency").
 */
export const WORKER_CONCURRENCY_BUDGET = REGION_CONCURRENCY / 10;

/**
 * A worker queue as its module declares it, beside its worker
 * (RETRY_QUEUE beside RETRY_WORKER, …): everything but the stack's resources.
 */
export interface WorkerQueueSettings {
  /** The queue is `<namePrefix>-<name>`, its dead-letter queue `<namePrefix>-<name>-dlq`. */
  readonly name: string;
  readonly worker: DeclaredFunction;
  /** Receives of one message before it moves to the dead-letter queue. */
  readonly maxReceiveCount: number;
  readonly batchSize: number;
  /**
   * Most workers the event source runs at once (SQS allows 2 to 1,000). Required: without it Lambda
   * scales a backlog up to the region's concurrency, which the API's functions share (docs/operations.md, "Concurrency").
   */
  readonly maxConcurrency: number;
  readonly maxMessageSizeBytes?: number;
  /** What the alarm tells the operator when a message reaches the dead letters. */
  readonly deadLetterAlarmDescription: string;
}

/** The stack's resources the worker's grants name, and the stage's prefix of the queue names (`postlane-<stage>`). */
export interface WorkerQueueResources extends DeclaredFunctionResources {
  readonly namePrefix: string;
}

/** What a further queue drained by the same worker declares (a lane: lib/webhooks.ts); the worker and its batch size are the queue's. */
export type WorkerLaneSettings = Pick<WorkerQueueSettings, 'name' | 'maxReceiveCount' | 'maxConcurrency' | 'deadLetterAlarmDescription'>;

/** A queue the worker drains, its dead-letter queue and the alarm on it. */
export interface DrainedQueue {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly deadLetterAlarm: Alarm;
}

/**
 * A queue drained by a worker function, with a dead-letter queue and an alarm
 * when anything reaches it. Both queues are encrypted with SQS-managed keys
 * (no KMS key to pay for or grant) and refuse requests not made over TLS. The
 * worker reports partial batch failures, so only the failed messages return.
 */
export class WorkerQueue extends Construct implements DrainedQueue {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly worker: EndpointFunction;
  readonly deadLetterAlarm: Alarm;
  private readonly namePrefix: string;
  private readonly settings: WorkerQueueSettings;

  constructor(scope: Construct, id: string, resources: WorkerQueueResources, settings: WorkerQueueSettings) {
    super(scope, id);
    this.namePrefix = resources.namePrefix;
    this.settings = settings;
    this.worker = new EndpointFunction(this, 'Worker', declaredFunctionProps(settings.worker, resources));
    ({ queue: this.queue, deadLetterQueue: this.deadLetterQueue, deadLetterAlarm: this.deadLetterAlarm } = this.drain(this, settings));
    acknowledgeFindings(this.worker.function, {
      'Serverless-LambdaEventSourceMappingDestination':
        "SQS event sources take no on-failure destination (streams and Kafka do): a message that keeps failing moves to the dead-letter queue by the queue's redrive policy",
    });
  }

  /** One more queue `<namePrefix>-<name>` for the same worker, with its own dead letters, alarm and event source concurrency. */
  protected addLane(id: string, lane: WorkerLaneSettings): DrainedQueue {
    return this.drain(new Construct(this, id), { ...this.settings, ...lane });
  }

  private drain(scope: Construct, settings: WorkerQueueSettings): DrainedQueue {
    const queueName = `${this.namePrefix}-${settings.name}`;
    const deadLetterQueue = deadLetters(scope, 'DeadLetters', `${queueName}-dlq`);
    const queue = new Queue(scope, 'Queue', {
      queueName,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: QUEUE_RETENTION,
      maxMessageSizeBytes: settings.maxMessageSizeBytes,
      visibilityTimeout: Duration.seconds(this.worker.function.timeout!.toSeconds() * VISIBILITY_PER_FUNCTION_TIMEOUT),
      deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: settings.maxReceiveCount },
    });
    this.worker.function.addEventSource(
      new SqsEventSource(queue, { batchSize: settings.batchSize, maxConcurrency: settings.maxConcurrency, reportBatchItemFailures: true }),
    );
    acknowledgeFindings(deadLetterQueue, {
      'Serverless-SQSRedrivePolicy': 'The end of the line: messages here are kept 14 days for an operator, and the alarm below says one arrived',
    });
    const deadLetterAlarm = postlaneAlarm(scope, 'DeadLettersAlarm', {
      metric: deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
      threshold: 1,
      description: settings.deadLetterAlarmDescription,
    });
    return { queue, deadLetterQueue, deadLetterAlarm };
  }
}

/**
 * A dead-letter queue as the stack keeps them: encrypted with SQS-managed
 * keys, TLS only, its messages kept DEAD_LETTER_RETENTION for an operator.
 */
export function deadLetters(scope: Construct, id: string, queueName: string): Queue {
  return new Queue(scope, id, { queueName, encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true, retentionPeriod: DEAD_LETTER_RETENTION });
}
