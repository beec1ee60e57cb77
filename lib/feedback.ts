import { Duration } from 'aws-cdk-lib';
import { EventBus, Rule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { ConfigurationSet, EmailSendingEvent, EventDestination } from 'aws-cdk-lib/aws-ses';
import { Construct } from 'constructs';
import type { TableAction } from '#shared/http/routes.ts';
import { EndpointFunction } from './endpoint-function.ts';
import { acknowledgeFindings, FIXED_BY_OPS_BRANCH } from './nag.ts';

/** Functions no HTTP route invokes: the infra tests check their grants as they check the route table's. */
export const EVENT_FUNCTIONS = {
  /**
   * findContactsByEmail (Query), changeContactStatus (GetItem, then updates of
   * the contact, its email claim and the counters, as PATCH /api/contacts/{id}),
   * changeEmailStatus and recordContactActivity (UpdateItem), putSuppression (PutItem).
   */
  sesFeedback: { handler: 'feedback/ses-events', table: ['GetItem', 'PutItem', 'Query', 'UpdateItem'] },
} as const satisfies Record<string, { handler: string; table: readonly TableAction[] }>;

/** The events that change a record or a contact; sends, opens and clicks are not published. */
export const FEEDBACK_EVENTS = [EmailSendingEvent.BOUNCE, EmailSendingEvent.COMPLAINT, EmailSendingEvent.DELIVERY, EmailSendingEvent.REJECT];

export interface SesFeedbackProps {
  readonly table: ITableV2;
}

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
  readonly function: EndpointFunction;

  constructor(scope: Construct, id: string, props: SesFeedbackProps) {
    super(scope, id);
    this.configurationSet = new ConfigurationSet(this, 'ConfigurationSet');
    const bus = EventBus.fromEventBusName(this, 'DefaultBus', 'default');
    this.configurationSet.addEventDestination('ToEventBridge', {
      destination: EventDestination.eventBus(bus),
      events: FEEDBACK_EVENTS,
    });
    this.function = new EndpointFunction(this, 'SesEvents', {
      handler: EVENT_FUNCTIONS.sesFeedback.handler,
      table: props.table,
      tableActions: EVENT_FUNCTIONS.sesFeedback.table,
    });
    const rule = new Rule(this, 'Rule', {
      description: 'Postlane: SES bounces, complaints, deliveries and rejects to the feedback function',
      eventPattern: {
        source: ['aws.ses'],
        detail: { mail: { tags: { 'ses:configuration-set': [this.configurationSet.configurationSetName] } } },
      },
      targets: [new LambdaFunction(this.function.function, { retryAttempts: 185, maxEventAge: Duration.hours(24) })],
    });
    // OPS-BRANCH: remove once the ops branch (the target's dead-letter queue and its alarm) is merged.
    acknowledgeFindings(rule, { 'Serverless-EventBusDLQ': FIXED_BY_OPS_BRANCH });
  }
}
