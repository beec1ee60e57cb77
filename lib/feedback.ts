import { type CfnElement, Duration, Names, Stack } from 'aws-cdk-lib';
import type { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import { EventBus, Rule } from 'aws-cdk-lib/aws-events';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Schedule, ScheduleExpression } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { ConfigurationSet, EmailSendingEvent, EventDestination } from 'aws-cdk-lib/aws-ses';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { configurationSetsOf, TRACKING_SET_SUFFIX } from '#shared/email/tracking.ts';
import type { TableAction } from '#shared/http/routes.ts';
import { postlaneAlarm } from './alarms.ts';
import { EndpointFunction } from './endpoint-function.ts';
import { acknowledgeFindings } from './nag.ts';

/** Functions no HTTP route invokes: the infra tests check their grants as they check the route table's. */
export const EVENT_FUNCTIONS = {
  /**
   * findContactsByEmail (Query), changeContactStatus (GetItem, then updates of
   * the contact, its email claim and the counters, as PATCH /api/contacts/{id}),
   * the record's change (UpdateItem) with its event (PutItem) in one transaction,
   * recordContactActivity (UpdateItem), putSuppression (PutItem).
   */
  sesFeedback: { handler: 'feedback/ses-events', table: ['GetItem', 'PutItem', 'Query', 'UpdateItem'] },
  /**
   * The cursor (GetItem, PutItem), the email record by SES message id (Query
   * on gsi1), then what sesFeedback does for a bounce or complaint; and SES's
   * account-level suppression list, read only.
   */
  suppressionReconciliation: {
    handler: 'feedback/reconcile',
    table: ['GetItem', 'PutItem', 'Query', 'UpdateItem'],
    ses: ['ListSuppressedDestinations', 'GetSuppressedDestination'],
  },
} as const satisfies Record<string, { handler: string; table: readonly TableAction[]; ses?: readonly string[] }>;

/** How often SES's suppression list is reconciled: a lost bounce is acted on within the hour. */
export const RECONCILIATION_RATE = Duration.hours(1);

/** The events that change a record or a contact, or become events of the log; sends are recorded by the sender itself. */
export const FEEDBACK_EVENTS = [
  EmailSendingEvent.BOUNCE,
  EmailSendingEvent.COMPLAINT,
  EmailSendingEvent.DELIVERY,
  EmailSendingEvent.DELIVERY_DELAY,
  EmailSendingEvent.REJECT,
];

export interface SesFeedbackProps {
  readonly table: ITableV2;
  /** `postlane-<stage>`: the dead-letter queue is `<prefix>-feedback-dlq`. */
  readonly namePrefix: string;
}

/** SES's longest configuration set name. */
const SES_NAME_MAX_LENGTH = 64;

/**
 * The configuration set every send names, publishing its events to the default
 * event bus, and the rule that hands them to the feedback function.
 *
 * EventBridge rather than SNS: SES publishes to the default bus with no topic,
 * subscription or topic policy to manage; the rule filters to this set's
 * events; and the rule's target retries a failed delivery (DynamoDB down) for
 * up to a day, where SNS would add a topic to pay for and secure.
 */
export class SesFeedback extends Construct {
  readonly configurationSet: ConfigurationSet;
  /** The stack's set and its tracking sibling (shared/email/tracking.ts): every set a send may name. */
  readonly configurationSetNames: string[];
  readonly function: EndpointFunction;
  /**
   * Events the function still failed on after EventBridge's day of retries
   * (`admin feedback replay` applies them); without it they would be dropped.
   */
  readonly deadLetterQueue: Queue;
  readonly deadLetterAlarm: Alarm;
  /** Applies what SES's account-level suppression list holds and the events missed (shared/domain/feedback-reconciliation.ts). */
  readonly reconciliation: EndpointFunction;

  constructor(scope: Construct, id: string, props: SesFeedbackProps) {
    super(scope, id);
    // Named here rather than by CloudFormation: a generated name may use all of
    // SES's 64 characters, and the tracking set's name adds its suffix to it.
    const [base, trackingName] = configurationSetsOf(Names.uniqueResourceName(this, { maxLength: SES_NAME_MAX_LENGTH - TRACKING_SET_SUFFIX.length })) as [
      string,
      string,
    ];
    this.configurationSet = new ConfigurationSet(this, 'ConfigurationSet', { configurationSetName: base });
    const bus = EventBus.fromEventBusName(this, 'DefaultBus', 'default');
    this.configurationSet.addEventDestination('ToEventBridge', {
      destination: EventDestination.eventBus(bus),
      events: FEEDBACK_EVENTS,
    });
    // Publishing opens and clicks is what makes SES track them (shared/email/tracking.ts).
    const tracking = new ConfigurationSet(this, 'TrackingConfigurationSet', { configurationSetName: trackingName });
    tracking.addEventDestination('ToEventBridge', {
      destination: EventDestination.eventBus(bus),
      events: [...FEEDBACK_EVENTS, EmailSendingEvent.OPEN, EmailSendingEvent.CLICK],
    });
    this.configurationSetNames = [this.configurationSet.configurationSetName, tracking.configurationSetName];
    this.function = new EndpointFunction(this, 'SesEvents', {
      handler: EVENT_FUNCTIONS.sesFeedback.handler,
      table: props.table,
      tableActions: EVENT_FUNCTIONS.sesFeedback.table,
    });
    this.deadLetterQueue = new Queue(this, 'DeadLetters', {
      queueName: `${props.namePrefix}-feedback-dlq`,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // SQS's longest: time for an operator to fix the cause and replay.
      retentionPeriod: Duration.days(14),
    });
    // cdk-nag recognises a dead-letter queue only by another queue's redrive policy, not by an EventBridge target's.
    const isDeadLetterQueue = "This queue is the dead-letter queue of the SES feedback rule's target; a dead-letter queue has none of its own";
    acknowledgeFindings(this.deadLetterQueue, { 'AwsSolutions-SQS3': isDeadLetterQueue, 'Serverless-SQSRedrivePolicy': isDeadLetterQueue });
    this.deadLetterAlarm = postlaneAlarm(this, 'DeadLettersAlarm', {
      metric: this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
      threshold: 1,
      description:
        'SES feedback events failed for a day (feedback dead-letter queue not empty); replay them with admin feedback replay once the cause is fixed',
    });
    new Rule(this, 'Rule', {
      description: 'Postlane: SES bounces, complaints, deliveries, delays, rejects, opens and clicks to the feedback function',
      eventPattern: {
        source: ['aws.ses'],
        detail: { mail: { tags: { 'ses:configuration-set': this.configurationSetNames } } },
      },
      targets: [new LambdaFunction(this.function.function, { retryAttempts: 185, maxEventAge: Duration.hours(24), deadLetterQueue: this.deadLetterQueue })],
    });
    this.reconciliation = this.reconcileSuppressionList(props.table);
  }

  private reconcileSuppressionList(table: ITableV2): EndpointFunction {
    const { handler, table: tableActions, ses } = EVENT_FUNCTIONS.suppressionReconciliation;
    const reconciliation = new EndpointFunction(this, 'Reconciliation', { handler, table, tableActions });
    // The suppression list is the account's: these actions take no resource but `*` (SES's service authorization reference).
    reconciliation.function.addToRolePolicy(new PolicyStatement({ actions: ses.map((action) => `ses:${action}`), resources: ['*'] }));
    acknowledgeFindings(reconciliation, {
      'AwsSolutions-IAM5[Resource::*]': 'ses:ListSuppressedDestinations and ses:GetSuppressedDestination support no resource-level permissions; both only read',
    });
    // A role of its own, rather than the stack-wide one the target would create, so its one finding is acknowledged here.
    const scheduleRole = new Role(this, 'ReconciliationScheduleRole', { assumedBy: new ServicePrincipal('scheduler.amazonaws.com') });
    const stack = Stack.of(this);
    const functionLogicalId = stack.resolve(stack.getLogicalId(reconciliation.function.node.defaultChild as CfnElement)) as string;
    acknowledgeFindings(scheduleRole, {
      [`AwsSolutions-IAM5[Resource::<${functionLogicalId}.Arn>:*]`]:
        'lambda:InvokeFunction on the reconciliation function and its versions, as grantInvoke writes it; this role can invoke nothing else',
    });
    // Scheduler rather than a rule: it retries a failed invocation itself, and a missed run is covered by the next one's window anyway.
    new Schedule(this, 'ReconciliationSchedule', {
      description: 'Postlane: apply SES account-level suppressions whose feedback events were lost',
      schedule: ScheduleExpression.rate(RECONCILIATION_RATE),
      target: new LambdaInvoke(reconciliation.function, { retryAttempts: 2, role: scheduleRole }),
    });
    return reconciliation;
  }
}
