import { describe, expect, it } from 'vitest';
import { GLOBAL_INDEXES } from '#shared/data/table.ts';
import { EVENT_FUNCTIONS } from '../../lib/feedback.ts';
import { logPairs, ofType, pair, postlaneFunctions, permissionsOf, referencedId, resourcesOf, synthesize, tablePairs } from './template.ts';

const { stacks, settings } = synthesize();

describe.each(stacks.map(({ stack, template }) => [stack.stackName, stack, template] as const))('%s SES feedback', (_name, stack, template) => {
  const resources = resourcesOf(template);
  const [[setId]] = ofType(resources, 'AWS::SES::ConfigurationSet') as [[string, unknown]];
  const feedbackId = ofType(resources, 'AWS::Lambda::Function').find(([, fn]) => fn.Properties.Description === 'Postlane functions/feedback/ses-events.ts')![0];

  it('publishes bounces, complaints, deliveries, delays and rejects of its configuration set, and opens and clicks too of its tracking set, to the default event bus', () => {
    const trackingId = referencedId(stack.resolve(stack.feedback.configurationSetNames[1])) as string;
    const destinations = ofType(resources, 'AWS::SES::ConfigurationSetEventDestination').map(([, destination]) => destination.Properties);
    const feedback = ['bounce', 'complaint', 'delivery', 'deliveryDelay', 'reject'];
    expect(destinations.map(({ ConfigurationSetName }) => referencedId(ConfigurationSetName))).toEqual([setId, trackingId]);
    expect(destinations[0]!.EventDestination).toMatchObject({ Enabled: true, MatchingEventTypes: feedback });
    expect(destinations[1]!.EventDestination).toMatchObject({ Enabled: true, MatchingEventTypes: [...feedback, 'open', 'click'] });
    for (const { EventDestination } of destinations) expect(JSON.stringify(EventDestination.EventBridgeDestination.EventBusArn)).toContain('event-bus/default');
    // `<stack's set>-tracking`: the name the transport derives (shared/email/tracking.ts).
    expect(JSON.stringify(resources[trackingId]!.Properties.Name)).toContain('-tracking');
  });

  it("names both sets within SES's 64 characters, the tracking set as the stack's set plus its suffix", () => {
    const [base, tracking] = ofType(resources, 'AWS::SES::ConfigurationSet').map(([, set]) => stack.resolve(set.Properties.Name));
    expect(base).toMatch(/^[A-Za-z0-9_-]{1,55}$/);
    expect(tracking).toBe(`${base}-tracking`);
    expect(tracking.length).toBeLessThanOrEqual(64);
  });

  it("routes both sets' SES events to the feedback function", () => {
    const rules = ofType(resources, 'AWS::Events::Rule');
    expect(rules).toHaveLength(1);
    const rule = rules[0]![1].Properties;
    expect(rule.EventPattern.source).toEqual(['aws.ses']);
    expect(rule.EventPattern.detail.mail.tags['ses:configuration-set'].map(referencedId)).toEqual([
      setId,
      referencedId(stack.resolve(stack.feedback.configurationSetNames[1])),
    ]);
    expect(rule.Targets.map((target: { Arn: unknown }) => referencedId(target.Arn))).toEqual([feedbackId]);
  });

  it('sends events still failing after a day of retries to an encrypted, TLS-only dead-letter queue with an alarm on its depth', () => {
    const deadLetterId = stack.resolve(stack.feedback.deadLetterQueue.queueArn)['Fn::GetAtt'][0] as string;
    const [target] = ofType(resources, 'AWS::Events::Rule')[0]![1].Properties.Targets;
    expect(target).toMatchObject({
      RetryPolicy: { MaximumRetryAttempts: 185, MaximumEventAgeInSeconds: 24 * 3600 },
      DeadLetterConfig: { Arn: { 'Fn::GetAtt': [deadLetterId, 'Arn'] } },
    });
    expect(resources[deadLetterId]!.Properties).toMatchObject({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 24 * 3600 });

    const policy = ofType(resources, 'AWS::SQS::QueuePolicy').find(([, p]) => p.Properties.Queues.map(referencedId).includes(deadLetterId))![1];
    const statements = policy.Properties.PolicyDocument.Statement;
    expect(statements).toContainEqual(expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }));
    // EventBridge may put messages there, for this rule only.
    expect(statements).toContainEqual(
      expect.objectContaining({
        Effect: 'Allow',
        Action: 'sqs:SendMessage',
        Principal: { Service: 'events.amazonaws.com' },
        Condition: { ArnEquals: { 'aws:SourceArn': expect.anything() } },
      }),
    );

    const alarms = ofType(resources, 'AWS::CloudWatch::Alarm').filter(([, alarm]) => JSON.stringify(alarm.Properties.Dimensions ?? []).includes(deadLetterId));
    expect(alarms).toHaveLength(1);
    expect(alarms[0]![1].Properties).toMatchObject({
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
  });

  /** What an event function's role must hold for its logs and its declared table actions (Query on every index too). */
  function logAndTablePermissions(functionId: string, tableActions: readonly string[]): string[] {
    return [
      ...logPairs(stack, resources, functionId),
      ...tablePairs(stack, tableActions, settings),
      ...GLOBAL_INDEXES.map((index) => pair(stack, 'dynamodb:Query', `${stack.table.tableArn}/index/${index.indexName}`)),
    ];
  }

  it('grants the feedback function exactly the table actions it declares', () => {
    expect(permissionsOf(stack, resources, feedbackId)).toEqual(new Set(logAndTablePermissions(feedbackId, EVENT_FUNCTIONS.sesFeedback.table)));
  });

  it('runs the suppression-list reconciliation every hour, granted exactly the table actions it declares and read-only SES suppression-list access', () => {
    const reconcileId = ofType(resources, 'AWS::Lambda::Function').find(
      ([, fn]) => fn.Properties.Description === `Postlane functions/${EVENT_FUNCTIONS.suppressionReconciliation.handler}.ts`,
    )![0];
    const schedules = ofType(resources, 'AWS::Scheduler::Schedule');
    expect(schedules).toHaveLength(1);
    const { ScheduleExpression, State, Target } = schedules[0]![1].Properties;
    expect([ScheduleExpression, State ?? 'ENABLED']).toEqual(['rate(1 hour)', 'ENABLED']);
    expect(referencedId(Target.Arn)).toBe(reconcileId);

    expect(permissionsOf(stack, resources, reconcileId)).toEqual(
      new Set([
        ...logAndTablePermissions(reconcileId, EVENT_FUNCTIONS.suppressionReconciliation.table),
        pair(stack, 'ses:ListSuppressedDestinations', '*'),
        pair(stack, 'ses:GetSuppressedDestination', '*'),
      ]),
    );
    // The scheduler's role may invoke this function and nothing else.
    const schedulerRoleId = referencedId(Target.RoleArn);
    const schedulerActions = ofType(resources, 'AWS::IAM::Policy')
      .filter(([, policy]) => policy.Properties.Roles.some((role: unknown) => referencedId(role) === schedulerRoleId))
      .flatMap(([, policy]) =>
        policy.Properties.PolicyDocument.Statement.flatMap((statement: { Action: string | string[]; Resource: unknown }) =>
          [statement.Action].flat().map((action) => pair(stack, action, statement.Resource)),
        ),
      );
    const functionArn = { 'Fn::GetAtt': [reconcileId, 'Arn'] };
    expect(new Set(schedulerActions)).toEqual(new Set([pair(stack, 'lambda:InvokeFunction', [functionArn, { 'Fn::Join': ['', [functionArn, ':*']] }])]));
  });

  it('names the configuration set in every sending function, and only there', () => {
    for (const [, fn] of postlaneFunctions(resources)) {
      const variable = fn.Properties.Environment.Variables.SES_CONFIGURATION_SET;
      const sends = /functions\/(email|otp|transactional|forms|broadcasts)\//.test(fn.Properties.Description) && variable !== undefined;
      if (variable !== undefined) expect(referencedId(variable), fn.Properties.Description).toBe(setId);
      if (!sends) expect(variable).toBeUndefined();
    }
  });
});
