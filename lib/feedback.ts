import { type CfnElement, Duration, Names, Stack } from 'aws-cdk-lib';
import { EventBus, Rule } from 'aws-cdk-lib/aws-events';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Schedule, ScheduleExpression } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import { SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { ConfigurationSet, EmailSendingEvent, EventDestination } from 'aws-cdk-lib/aws-ses';
import type { Construct } from 'constructs';
import { configurationSetsOf, TRACKING_SET_SUFFIX } from '#shared/sending/tracking.ts';
import type { TableAction } from '#shared/platform/http/routes.ts';
import { FEEDBACK_BATCH_SIZE, FEEDBACK_MAX_CONCURRENCY, FEEDBACK_MAX_RECEIVES } from '#shared/feedback/policy.ts';
import { type DeclaredFunction, EndpointFunction } from './endpoint-function.ts';
import { acknowledgeFindings } from './nag.ts';
import { WorkerQueue, type WorkerQueueSettings } from './worker-queue.ts';

/**
 * The feedback worker, which no HTTP route invokes: findContactsByEmail
 * (Query), changeContactStatus (GetItem, then updates of the contact, its
 * email claim and the counters, as PATCH /api/contacts/{id}), the record's
 * change (UpdateItem) with its event (PutItem) in one transaction,
 * recordContactActivity (UpdateItem), putSuppression (PutItem).
 */
export const FEEDBACK_WORKER = {
  handler: 'feedback/ses-events',
  table: ['GetItem', 'PutItem', 'Query', 'UpdateItem'],
} as const satisfies DeclaredFunction;

/**
 * The feedback queue: the rule puts every SES event on it, and its event
 * source hands them to the worker, ten at a time; one that fails
 * FEEDBACK_MAX_RECEIVES times moves to `<prefix>-feedback-dlq`.
 */
export const FEEDBACK_QUEUE = {
  name: 'feedback',
  worker: FEEDBACK_WORKER,
  maxReceiveCount: FEEDBACK_MAX_RECEIVES,
  batchSize: FEEDBACK_BATCH_SIZE,
  maxConcurrency: FEEDBACK_MAX_CONCURRENCY,
  deadLetterAlarmDescription:
    'SES feedback events failed (feedback dead-letter queue not empty): bounces and complaints are not applied; replay them with admin feedback replay once the cause is fixed',
} as const satisfies WorkerQueueSettings;

/** Functions no HTTP route or queue invokes: the infra tests check their grants as they check the route table's. */
export const EVENT_FUNCTIONS = {
  /**
   * The cursor (GetItem, PutItem), the email record by SES message id (Query
   * on gsi1), then what the feedback worker does for a bounce or complaint;
   * and SES's account-level suppression list, read only.
   */
  suppressionReconciliation: {
    handler: 'feedback/reconcile',
    table: ['GetItem', 'PutItem', 'Query', 'UpdateItem'],
    ses: ['ListSuppressedDestinations', 'GetSuppressedDestination'],
  },
} as const satisfies Record<string, { handler: string; table: readonly TableAction[]; ses?: readonly string[] }>;

/** How often SES's suppression list is reconciled: a lost bounce is acted on within the hour. */
export const RECONCILIATION_RATE = Duration.hours(1);

/**
 * How long the rule keeps trying to put an event on the feedback queue (SQS
 * unreachable, the queue's policy broken) before it gives the event to the
 * dead-letter queue instead: EventBridge's longest.
 */
const RULE_RETRY = { retryAttempts: 185, maxEventAge: Duration.hours(24) };

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
  /** `postlane-<stage>`: the queues are `<prefix>-feedback` and `<prefix>-feedback-dlq`. */
  readonly namePrefix: string;
}

/** SES's longest configuration set name. */
const SES_NAME_MAX_LENGTH = 64;

/**
 * The configuration set every send names, publishing its events to the default
 * event bus; the rule that puts them on the feedback queue; the queue, the
 * worker its event source feeds, the dead-letter queue and its alarm.
 *
 * EventBridge rather than SNS: SES publishes to the default bus with no topic,
 * subscription or topic policy to manage, and the rule filters to this set's
 * events.
 *
 * A queue between the rule and the function rather than the function as the
 * rule's target. The rule invokes a function asynchronously: its retries and
 * dead-letter queue cover only handing the event to Lambda, and Lambda then
 * retries a function that throws (DynamoDB throttled or down) twice in about
 * three minutes and drops the event. An on-failure destination would keep it,
 * wrapped in Lambda's invocation record, but nothing would bound how many
 * functions a burst of events (a large broadcast's deliveries) runs at once.
 * With the queue, the event source's maximum concurrency bounds them, a
 * failed event is received again until the redrive policy moves it, as SES
 * published it, to the dead-letter queue `admin feedback replay` reads, and
 * the local stand-ins run the same path (dev/local/feedback-worker.ts). The
 * rule's own dead-letter queue, for events it could not put on the queue, is
 * the same one.
 */
export class SesFeedback extends WorkerQueue {
  readonly configurationSet: ConfigurationSet;
  /** The stack's set and its tracking sibling (shared/sending/tracking.ts): every set a send may name. */
  readonly configurationSetNames: string[];
  /** Applies what SES's account-level suppression list holds and the events missed (shared/feedback/reconciliation.ts). */
  readonly reconciliation: EndpointFunction;

  constructor(scope: Construct, id: string, props: SesFeedbackProps) {
    super(scope, id, props, FEEDBACK_QUEUE);
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
    // Publishing opens and clicks is what makes SES track them (shared/sending/tracking.ts).
    const tracking = new ConfigurationSet(this, 'TrackingConfigurationSet', { configurationSetName: trackingName });
    tracking.addEventDestination('ToEventBridge', {
      destination: EventDestination.eventBus(bus),
      events: [...FEEDBACK_EVENTS, EmailSendingEvent.OPEN, EmailSendingEvent.CLICK],
    });
    this.configurationSetNames = [this.configurationSet.configurationSetName, tracking.configurationSetName];
    new Rule(this, 'Rule', {
      description: 'Postlane: SES bounces, complaints, deliveries, delays, rejects, opens and clicks to the feedback queue',
      eventPattern: {
        source: ['aws.ses'],
        detail: { mail: { tags: { 'ses:configuration-set': this.configurationSetNames } } },
      },
      // The whole event as the body, as `admin feedback replay` and the worker read it.
      targets: [new SqsQueue(this.queue, { ...RULE_RETRY, deadLetterQueue: this.deadLetterQueue })],
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
    // Scheduler invokes the function asynchronously: its retries cover handing the run to Lambda, and Lambda retries a
    // run that throws twice, then drops it. Nothing needs keeping: a failed run leaves the cursor where it was, so the
    // next hour's run reads the same window again (shared/feedback/reconciliation.ts), and the errors alarm says it failed.
    new Schedule(this, 'ReconciliationSchedule', {
      description: 'Postlane: apply SES account-level suppressions whose feedback events were lost',
      schedule: ScheduleExpression.rate(RECONCILIATION_RATE),
      target: new LambdaInvoke(reconciliation.function, { retryAttempts: 2, role: scheduleRole }),
    });
    return reconciliation;
  }
}
