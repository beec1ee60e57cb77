import { describe, expect, it } from 'vitest';
import { GLOBAL_INDEXES } from '#shared/platform/dynamodb/table.ts';
import { FEEDBACK_BATCH_SIZE, FEEDBACK_MAX_CONCURRENCY, FEEDBACK_MAX_RECEIVES } from '#shared/feedback/policy.ts';
import { EVENT_FUNCTIONS, FEEDBACK_WORKER } from '../../lib/feedback.ts';
import { logPairs, ofType, pair, postlaneFunctions, permissionsOf, referencedId, resourcesOf, synthesize, tablePairs } from './template.ts';
import { expectDeadLetterAlarm, expectWorkerFedBy, expectWorkerGrants } from './worker-queue.ts';

const { stacks, settings } = synthesize();

describe.each(stacks.map(({ stack, template }) => [stack.stackName, stack, template] as const))('%s SES feedback', (_name, stack, template) => {
  const resources = resourcesOf(template);
  const [[setId]] = ofType(resources, 'AWS::SES::ConfigurationSet') as [[string, unknown]];
  const feedbackId = ofType(resources, 'AWS::Lambda::Function').find(
    ([, fn]) => fn.Properties.Description === `Postlane functions/${FEEDBACK_WORKER.handler}.ts`,
  )![0];
  const queueId = stack.resolve(stack.feedback.queue.queueArn)['Fn::GetAtt'][0] as string;
  const deadLetterId = stack.resolve(stack.feedback.deadLetterQueue.queueArn)['Fn::GetAtt'][0] as string;
  const [[ruleId]] = ofType(resources, 'AWS::Events::Rule') as [[string, unknown]];
  /** The statements of the queue policies guarding the queue `id`. */
  const policyOf = (id: string) =>
    ofType(resources, 'AWS::SQS::QueuePolicy')
      .filter(([, policy]) => policy.Properties.Queues.map(referencedId).includes(id))
      .flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement);

  it('publishes bounces, complaints, deliveries, delays and rejects of its configuration set, and opens and clicks too of its tracking set, to the default event bus', () => {
    const trackingId = referencedId(stack.resolve(stack.feedback.configurationSetNames[1])) as string;
    const destinations = ofType(resources, 'AWS::SES::ConfigurationSetEventDestination').map(([, destination]) => destination.Properties);
    const feedback = ['bounce', 'complaint', 'delivery', 'deliveryDelay', 'reject'];
    expect(destinations.map(({ ConfigurationSetName }) => referencedId(ConfigurationSetName))).toEqual([setId, trackingId]);
    expect(destinations[0]!.EventDestination).toMatchObject({ Enabled: true, MatchingEventTypes: feedback });
    expect(destinations[1]!.EventDestination).toMatchObject({ Enabled: true, MatchingEventTypes: [...feedback, 'open', 'click'] });
    for (const { EventDestination } of destinations) expect(JSON.stringify(EventDestination.EventBridgeDestination.EventBusArn)).toContain('event-bus/default');
    // `<stack's set>-tracking`: the name the transport derives (shared/sending/tracking.ts).
    expect(JSON.stringify(resources[trackingId]!.Properties.Name)).toContain('-tracking');
  });

  it("names both sets within SES's 64 characters, the tracking set as the stack's set plus its suffix", () => {
    const [base, tracking] = ofType(resources, 'AWS::SES::ConfigurationSet').map(([, set]) => stack.resolve(set.Properties.Name));
    expect(base).toMatch(/^[A-Za-z0-9_-]{1,55}$/);
    expect(tracking).toBe(`${base}-tracking`);
    expect(tracking.length).toBeLessThanOrEqual(64);
  });

  it("puts both sets' SES events, whole, on the feedback queue, and nowhere else", () => {
    const rules = ofType(resources, 'AWS::Events::Rule');
    expect(rules).toHaveLength(1);
    const rule = rules[0]![1].Properties;
    expect(rule.EventPattern.source).toEqual(['aws.ses']);
    expect(rule.EventPattern.detail.mail.tags['ses:configuration-set'].map(referencedId)).toEqual([
      setId,
      referencedId(stack.resolve(stack.feedback.configurationSetNames[1])),
    ]);
    // No Input or InputPath: the body is the event as EventBridge received it, which the worker and the replay read.
    expect(rule.Targets).toEqual([
      {
        Id: expect.any(String),
        Arn: { 'Fn::GetAtt': [queueId, 'Arn'] },
        RetryPolicy: { MaximumRetryAttempts: 185, MaximumEventAgeInSeconds: 24 * 3600 },
        DeadLetterConfig: { Arn: { 'Fn::GetAtt': [deadLetterId, 'Arn'] } },
      },
    ]);
    // Nothing invokes the worker asynchronously, where Lambda's two retries would end in a dropped event.
    const invokers = ofType(resources, 'AWS::Lambda::Permission').filter(([, permission]) => referencedId(permission.Properties.FunctionName) === feedbackId);
    expect(invokers).toEqual([]);
  });

  it('moves an event the worker failed on at every receive, or the rule could not queue, to an encrypted, TLS-only dead-letter queue with an alarm', () => {
    expect(resources[queueId]!.Properties).toMatchObject({
      QueueName: 'postlane-prod-feedback',
      SqsManagedSseEnabled: true,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [deadLetterId, 'Arn'] }, maxReceiveCount: FEEDBACK_MAX_RECEIVES },
      VisibilityTimeout: 6 * resources[feedbackId]!.Properties.Timeout,
    });
    expect(resources[deadLetterId]!.Properties).toMatchObject({
      QueueName: 'postlane-prod-feedback-dlq',
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 14 * 24 * 3600,
    });
    // What the replay command takes as --queue.
    expect(stack.resolve(stack.feedback.deadLetterQueue.queueUrl)).toEqual({ Ref: deadLetterId });
    for (const id of [queueId, deadLetterId]) {
      const statements = policyOf(id);
      expect(statements).toContainEqual(expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }));
      // EventBridge may put messages there, for this rule only.
      const fromRule = statements.filter(
        (statement: { Effect: string; Principal?: { Service?: string }; Condition?: unknown }) =>
          statement.Effect === 'Allow' && statement.Principal?.Service === 'events.amazonaws.com',
      );
      expect(fromRule).toHaveLength(1);
      expect([fromRule[0].Action].flat()).toContain('sqs:SendMessage');
      expect(fromRule[0].Condition).toEqual({ ArnEquals: { 'aws:SourceArn': { 'Fn::GetAtt': [ruleId, 'Arn'] } } });
    }
    expectDeadLetterAlarm(resources, deadLetterId);
  });

  it('feeds the worker ten events a batch, reporting partial batch failures, at most FEEDBACK_MAX_CONCURRENCY at once', () => {
    expectWorkerFedBy(resources, queueId, feedbackId, FEEDBACK_BATCH_SIZE);
    const mapping = ofType(resources, 'AWS::Lambda::EventSourceMapping').find(([, one]) => referencedId(one.Properties.EventSourceArn) === queueId)![1];
    expect(mapping.Properties.ScalingConfig).toEqual({ MaximumConcurrency: FEEDBACK_MAX_CONCURRENCY });
  });

  /** What a feedback function's role must hold for its declared table actions (Query on every index too). */
  function tablePermissions(tableActions: readonly string[]): string[] {
    return [
      ...tablePairs(stack, tableActions, settings),
      ...GLOBAL_INDEXES.map((index) => pair(stack, 'dynamodb:Query', `${stack.table.tableArn}/index/${index.indexName}`)),
    ];
  }

  it("grants the feedback worker exactly the table actions it declares and its event source's queue actions", () => {
    expectWorkerGrants(stack, resources, feedbackId, stack.feedback.queue.queueArn, tablePermissions(FEEDBACK_WORKER.table));
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
        ...logPairs(stack, resources, reconcileId),
        ...tablePermissions(EVENT_FUNCTIONS.suppressionReconciliation.table),
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
