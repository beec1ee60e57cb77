import { Duration, Stack } from 'aws-cdk-lib';
import type { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { EventSourceMapping, FilterCriteria, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { AwsCustomResource, AwsCustomResourcePolicy, PhysicalResourceId } from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import type { TableAction } from '#shared/platform/http/routes.ts';
import { EVENT_STREAM_FILTER, FAN_OUT_BATCH_SIZE } from '#shared/events/stream-records.ts';
import { postlaneAlarm } from './alarms.ts';
import { EndpointFunction } from './endpoint-function.ts';
import { acknowledgeFindings } from './nag.ts';
import type { WebhookDelivery } from './webhooks.ts';
import { DEAD_LETTER_RETENTION } from './queue-retention.ts';

/**
 * The stream's fan-out function, which no HTTP route invokes: the account's
 * endpoints (Query), each delivery put once (PutItem) and read back when it
 * exists already (GetItem), which also reads an account's home region on a
 * global table.
 */
export const EVENT_FAN_OUT = {
  handler: 'events/fan-out',
  table: ['GetItem', 'PutItem', 'Query'],
} as const satisfies { handler: string; table: readonly TableAction[] };

/**
 * Times a failing batch is handed again (halved each time, bisectBatchOnError)
 * before its record goes to the on-failure queue: enough for a table or queue
 * outage of a few minutes, few enough that one bad record does not hold its
 * shard for the stream's whole 24 hours.
 */
export const FAN_OUT_RETRY_ATTEMPTS = 10;

/** The actions the stream's event source mapping uses with the function's role. */
export const STREAM_READ_ACTIONS = ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams'] as const;

export interface EventFanOutProps {
  /** `postlane-<stage>`: the on-failure queue is `<prefix>-event-fan-out-dlq`. */
  readonly namePrefix: string;
  readonly table: ITableV2;
  /** This stack created the table (its stream ARN is known); otherwise it is looked up at deploy time. */
  readonly ownsTable: boolean;
  readonly webhooks: WebhookDelivery;
  /** The EventBridge bus every event is also put on (`default` for the account's default bus); none unless set. */
  readonly eventBus?: string;
}

/**
 * From the table's stream to the webhook queue (shared/webhooks/stream.ts):
 * an event source mapping filtered to new event items, the function that
 * queues their deliveries, and an on-failure queue with an alarm for the
 * batches that kept failing.
 */
export class EventFanOut extends Construct {
  readonly function: EndpointFunction;
  readonly failures: Queue;
  readonly failureAlarm: Alarm;
  readonly streamArn: string;

  constructor(scope: Construct, id: string, props: EventFanOutProps) {
    super(scope, id);
    const stack = Stack.of(this);
    this.function = new EndpointFunction(this, 'Function', { handler: EVENT_FAN_OUT.handler, table: props.table, tableActions: EVENT_FAN_OUT.table });
    const fn = this.function.function;
    props.webhooks.grantEnqueue(fn);
    this.streamArn = props.ownsTable ? props.table.tableStreamArn! : this.lookUpStreamArn(props.table.tableName);
    fn.addToRolePolicy(new PolicyStatement({ actions: [...STREAM_READ_ACTIONS], resources: [this.streamArn] }));

    if (props.eventBus) {
      fn.addEnvironment('EVENT_BUS_NAME', props.eventBus);
      fn.addToRolePolicy(
        new PolicyStatement({
          actions: ['events:PutEvents'],
          resources: [stack.formatArn({ service: 'events', resource: 'event-bus', resourceName: props.eventBus })],
        }),
      );
    }

    this.failures = new Queue(this, 'Failures', {
      queueName: `${props.namePrefix}-event-fan-out-dlq`,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // The stream keeps the records themselves 24 hours only.
      retentionPeriod: DEAD_LETTER_RETENTION,
    });
    new EventSourceMapping(this, 'Stream', {
      target: fn,
      eventSourceArn: this.streamArn,
      // Events written before the first deployment predate their endpoints' fan-out.
      startingPosition: StartingPosition.LATEST,
      batchSize: FAN_OUT_BATCH_SIZE,
      maxBatchingWindow: Duration.seconds(1),
      filters: [FilterCriteria.filter(EVENT_STREAM_FILTER as Record<string, unknown>)],
      reportBatchItemFailures: true,
      bisectBatchOnError: true,
      // One batch per shard at a time (Lambda's default, stated): the fan-out's concurrency is the stream's shard count, which no maximum caps.
      parallelizationFactor: 1,
      retryAttempts: FAN_OUT_RETRY_ATTEMPTS,
      onFailure: new SqsDlq(this.failures),
    });
    acknowledgeFindings(this.failures, {
      'AwsSolutions-SQS3': 'The end of the line: the stream event source sends the batches that kept failing here, and the alarm below says one arrived',
      'Serverless-SQSRedrivePolicy':
        'The end of the line: the stream event source sends the batches that kept failing here, and the alarm below says one arrived',
    });
    this.failureAlarm = postlaneAlarm(this, 'FailuresAlarm', {
      metric: this.failures.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
      threshold: 1,
      description:
        'webhook fan-out stopped for some events (event fan-out dead-letter queue not empty): each message names a stream range that failed ten times; replay it within 24 hours',
    });
  }

  /** A replica's (or a retained table's) stream, which CloudFormation knows only by the table's name. */
  private lookUpStreamArn(tableName: string): string {
    const stack = Stack.of(this);
    const lookup = new AwsCustomResource(this, 'StreamLookup', {
      onUpdate: {
        service: 'DynamoDB',
        action: 'describeTable',
        parameters: { TableName: tableName },
        physicalResourceId: PhysicalResourceId.of(`${tableName}-stream`),
        outputPaths: ['Table.LatestStreamArn'],
      },
      policy: AwsCustomResourcePolicy.fromSdkCalls({ resources: [stack.formatArn({ service: 'dynamodb', resource: 'table', resourceName: tableName })] }),
      installLatestAwsSdk: false,
    });
    // The custom resource's function, one per stack whoever makes it (AwsCustomResource's singleton).
    const provider = stack.node.tryFindChild(`AWS${AwsCustomResource.PROVIDER_FUNCTION_UUID.replaceAll('-', '')}`);
    if (provider) {
      const why = 'Runs once per deployment to read the stream ARN of a table this stack did not create (DescribeTable on that table only)';
      acknowledgeFindings(provider, {
        'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]': `${why}: AwsCustomResource gives its function the basic execution role`,
        'Serverless-LambdaDefaultMemorySize': `${why}: the default memory is plenty`,
        'Serverless-LambdaDLQ': `${why}: CloudFormation invokes it and reports its failure as the deployment's`,
        'Serverless-LambdaTracing': `${why}: nothing to trace`,
      });
    }
    return lookup.getResponseField('Table.LatestStreamArn');
  }
}
