import { Aspects, Duration, Stack, type IAspect } from 'aws-cdk-lib';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { Alarm, ComparisonOperator, MathExpression, Metric, TreatMissingData, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Function as LambdaFunction, type IFunction } from 'aws-cdk-lib/aws-lambda';
import { ScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct, type IConstruct } from 'constructs';
import { acknowledgeFindings } from './nag.ts';
import { DEAD_LETTER_RETENTION } from './queue-retention.ts';

/**
 * SES reviews an account whose bounce rate reaches 5% and may pause it at 10%;
 * for complaints the levels are 0.1% and 0.5%. The metrics are fractions.
 */
export const SES_BOUNCE_RATE_THRESHOLD = 0.05;
export const SES_COMPLAINT_RATE_THRESHOLD = 0.001;

/** Percent of API requests answered 5xx over five minutes, alarmed on in two of three periods. */
export const API_5XX_PERCENT_THRESHOLD = 5;
/** Below this many requests in five minutes one failure is no rate: a quiet API never alarms on a single 500. */
export const API_5XX_MIN_REQUESTS = 20;

/** CloudWatch refuses a metric math alarm over more than 10 metrics, so function errors are summed in groups of 10. */
const METRICS_PER_ALARM = 10;

export interface AlarmSpec {
  readonly metric: IMetric;
  /** Alarms at this value or above. */
  readonly threshold: number;
  readonly description: string;
  readonly evaluationPeriods?: number;
  readonly datapointsToAlarm?: number;
}

/**
 * An alarm as Postlane sets them: at or above the threshold, and no data is no
 * problem (a quiet API, a region that sends no mail). Exported for other
 * constructs' alarms (a queue's depth); every alarm in the stack notifies the
 * alarm topic, whoever made it.
 *
 * `postlaneAlarm(this, 'DeadLetters', { metric: dlq.metricApproximateNumberOfMessagesVisible(), threshold: 1, description: '...' })`
 */
export function postlaneAlarm(scope: Construct, id: string, spec: AlarmSpec): Alarm {
  return new Alarm(scope, id, {
    metric: spec.metric,
    threshold: spec.threshold,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    evaluationPeriods: spec.evaluationPeriods ?? 1,
    ...(spec.datapointsToAlarm ? { datapointsToAlarm: spec.datapointsToAlarm } : {}),
    treatMissingData: TreatMissingData.NOT_BREACHING,
    alarmDescription: `Postlane: ${spec.description}`,
  });
}

/** Sends every alarm of the scope it visits to a topic, when it fires and when it clears. */
class NotifyTopic implements IAspect {
  constructor(private readonly topic: Topic) {}

  visit(node: IConstruct): void {
    if (!(node instanceof Alarm)) return;
    node.addAlarmAction(new SnsAction(this.topic));
    node.addOkAction(new SnsAction(this.topic));
  }
}

export interface PostlaneAlarmsProps {
  /** `postlane-<stage>`: the alarm email's dead-letter queue is `<prefix>-alarm-email-dlq`. */
  readonly namePrefix: string;
  readonly httpApi: IHttpApi;
  /** Every function of the stack: their errors are alarmed on. */
  readonly functions: readonly IFunction[];
  /** Subscribed by email to the alarm topic (it must confirm the subscription); without it alarms show in the console only. */
  readonly alarmEmail?: string;
}

/**
 * The region's alarms: API 5xx rate, Lambda throttles and errors, and the SES
 * reputation metrics AWS enforces sending limits on. About $0.10 a month each.
 */
export class PostlaneAlarms extends Construct {
  /** Present only with an alarm email. */
  readonly topic?: Topic;
  /** Notifications SNS could not deliver by email after its retries; present only with an alarm email. */
  readonly emailDeadLetterQueue?: Queue;
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: PostlaneAlarmsProps) {
    super(scope, id);
    const fiveMinutes = Duration.minutes(5);

    this.alarms.push(
      postlaneAlarm(this, 'Api5xxRate', {
        metric: new MathExpression({
          expression: `IF(requests >= ${API_5XX_MIN_REQUESTS}, 100 * errors / requests, 0)`,
          usingMetrics: {
            errors: props.httpApi.metricServerError({ statistic: 'Sum', period: fiveMinutes }),
            requests: props.httpApi.metricCount({ statistic: 'Sum', period: fiveMinutes }),
          },
          period: fiveMinutes,
          label: 'API 5xx (%)',
        }),
        threshold: API_5XX_PERCENT_THRESHOLD,
        evaluationPeriods: 3,
        datapointsToAlarm: 2,
        description: `${API_5XX_PERCENT_THRESHOLD}% or more of API requests answered 5xx (at least ${API_5XX_MIN_REQUESTS} requests in 5 minutes)`,
      }),
    );

    // The functions reserve no concurrency, so a throttle anywhere in the region
    // comes from the account's shared pool and starves Postlane's functions too.
    this.alarms.push(
      postlaneAlarm(this, 'LambdaThrottles', {
        metric: LambdaFunction.metricAllThrottles({ statistic: 'Sum', period: fiveMinutes }),
        threshold: 1,
        description: 'Lambda throttled invocations in this region (the account concurrency limit was reached)',
      }),
    );

    // Handlers turn every thrown error into a 500 envelope, and queue workers list failed
    // messages instead of throwing, so these count what neither can: timeouts, crashes,
    // out of memory, and a reconciliation run that failed (its schedule invokes it asynchronously).
    chunks(props.functions, METRICS_PER_ALARM).forEach((group, index) => {
      this.alarms.push(
        postlaneAlarm(this, `LambdaErrors${index + 1}`, {
          metric: new MathExpression({
            expression: group.map((_, i) => `e${i}`).join(' + '),
            usingMetrics: Object.fromEntries(group.map((fn, i) => [`e${i}`, fn.metricErrors({ statistic: 'Sum', period: fiveMinutes })])),
            period: fiveMinutes,
            label: 'Lambda errors',
          }),
          threshold: 1,
          description: `Lambda errors (timeouts, crashes) in functions group ${index + 1} of ${Math.ceil(props.functions.length / METRICS_PER_ALARM)}`,
        }),
      );
    });

    // Scheduler invokes its targets asynchronously and retries a failed one as its retry policy says, then drops it
    // unless it has a dead-letter queue: the hourly reconciliation has none (a run skipped, the next covers its window);
    // a broadcast's schedule has one (lib/broadcasts.ts, alarmed there), and only a dead letter Scheduler could not
    // write (the role's grant on that queue broken) is lost, the broadcast left `scheduled`. Both live in the default group.
    const schedules = ScheduleGroup.fromDefaultScheduleGroup(this, 'DefaultScheduleGroup');
    this.alarms.push(
      postlaneAlarm(this, 'SchedulerDropped', {
        metric: schedules.metricDropped({ statistic: 'Sum', period: fiveMinutes }),
        threshold: 1,
        description:
          'EventBridge Scheduler dropped a target after its retries: a reconciliation run was skipped (the next covers its window), or a broadcast start step its dead-letter queue did not take (send the broadcast again)',
      }),
    );
    this.alarms.push(
      postlaneAlarm(this, 'SchedulerDeadLetterFailed', {
        metric: schedules.metricFailedToBeSentToDLQ(undefined, { statistic: 'Sum', period: fiveMinutes }),
        threshold: 1,
        description:
          "EventBridge Scheduler could not write a dead letter: a scheduled broadcast did not start and nothing holds its start step (check the Scheduler role's grant on the broadcast schedules dead-letter queue, then send the broadcast again)",
      }),
    );

    // Account-wide per region, as SES measures reputation. They are rates over a window
    // of recent sending and move slowly, so the hour's maximum is enough.
    const reputation = (metricName: string) => new Metric({ namespace: 'AWS/SES', metricName, statistic: 'Maximum', period: Duration.hours(1) });
    this.alarms.push(
      postlaneAlarm(this, 'SesBounceRate', {
        metric: reputation('Reputation.BounceRate'),
        threshold: SES_BOUNCE_RATE_THRESHOLD,
        description: `SES bounce rate at ${SES_BOUNCE_RATE_THRESHOLD * 100}% or more: AWS reviews the account at 5% and may pause sending at 10%`,
      }),
    );
    this.alarms.push(
      postlaneAlarm(this, 'SesComplaintRate', {
        metric: reputation('Reputation.ComplaintRate'),
        threshold: SES_COMPLAINT_RATE_THRESHOLD,
        description: `SES complaint rate at ${SES_COMPLAINT_RATE_THRESHOLD * 100}% or more: AWS reviews the account at 0.1% and may pause sending at 0.5%`,
      }),
    );

    if (props.alarmEmail) {
      // Only CloudWatch publishes to it, over TLS as every AWS service does; the policy refuses anyone who would not.
      this.topic = new Topic(this, 'Topic', { displayName: `Postlane alarms (${Stack.of(this).region})`, enforceSSL: true });
      // SNS retries an email delivery for hours, then drops the notification; kept here instead, for the console.
      this.emailDeadLetterQueue = new Queue(this, 'EmailDeadLetters', {
        queueName: `${props.namePrefix}-alarm-email-dlq`,
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        retentionPeriod: DEAD_LETTER_RETENTION,
      });
      const isDeadLetterQueue =
        "The alarm email subscription's dead-letter queue, the end of the line: an alarm on it could only notify the same failing email, so docs/operations.md says where to look";
      acknowledgeFindings(this.emailDeadLetterQueue, { 'AwsSolutions-SQS3': isDeadLetterQueue, 'Serverless-SQSRedrivePolicy': isDeadLetterQueue });
      this.topic.addSubscription(new EmailSubscription(props.alarmEmail, { deadLetterQueue: this.emailDeadLetterQueue }));
      Aspects.of(Stack.of(this)).add(new NotifyTopic(this.topic));
    }
  }
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const groups: T[][] = [];
  for (let start = 0; start < items.length; start += size) groups.push(items.slice(start, start + size));
  return groups;
}
