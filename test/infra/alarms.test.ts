import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { App } from 'aws-cdk-lib';
import { Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { addRegionalStacks, readSettings } from '../../lib/app.ts';
import { API_5XX_PERCENT_THRESHOLD, postlaneAlarm, SES_BOUNCE_RATE_THRESHOLD, SES_COMPLAINT_RATE_THRESHOLD } from '../../lib/alarms.ts';
import { ofType, postlaneFunctions, referencedId, resourcesOf, templateOf, testApp, type Resource, type Resources } from './template.ts';

interface MetricQuery {
  Id: string;
  Expression?: string;
  MetricStat?: { Metric: { Namespace: string; MetricName: string; Dimensions?: { Name: string; Value: unknown }[] }; Stat: string };
}

/** Both stacks with an alarm email, and one alarm added the way another construct would. */
function synthesizeWithEmail() {
  const app = testApp({ 'postlane:alarmEmail': 'ops@example.com' });
  const stacks = addRegionalStacks(app);
  const extra = postlaneAlarm(stacks[0]!, 'QueueDepthForTest', {
    metric: new Metric({ namespace: 'AWS/SQS', metricName: 'ApproximateNumberOfMessagesVisible' }),
    threshold: 1,
    description: 'test',
  });
  return { stacks: stacks.map((stack) => resourcesOf(templateOf(stack))), extraId: stacks[0]!.getLogicalId(extra.node.defaultChild as never) };
}

function synthesizeDefault(): Resources[] {
  const app = testApp();
  return addRegionalStacks(app).map((stack) => resourcesOf(templateOf(stack)));
}

function alarmsOf(resources: Resources): Resource[] {
  return ofType(resources, 'AWS::CloudWatch::Alarm').map(([, alarm]) => alarm);
}

/** The alarm watching `metricName` of `namespace`, alone or inside its metric math. */
function alarmOn(resources: Resources, namespace: string, metricName: string): Resource[] {
  return alarmsOf(resources).filter(
    (alarm) =>
      (alarm.Properties.Namespace === namespace && alarm.Properties.MetricName === metricName) ||
      (alarm.Properties.Metrics as MetricQuery[] | undefined)?.some(
        (query) => query.MetricStat?.Metric.Namespace === namespace && query.MetricStat.Metric.MetricName === metricName,
      ),
  );
}

const [home, replica] = synthesizeDefault();

describe.each([
  ['first region', home!],
  ['second region', replica!],
])('alarms of the %s', (_name, resources) => {
  it('alarms on the share of API requests answered 5xx, from the stack’s own HTTP API', () => {
    const [apiId] = ofType(resources, 'AWS::ApiGatewayV2::Api').map(([id]) => id);
    const [alarm] = alarmOn(resources, 'AWS/ApiGateway', '5xx');
    const queries = alarm!.Properties.Metrics as MetricQuery[];

    const byName = Object.fromEntries(queries.filter((query) => query.MetricStat).map((query) => [query.MetricStat!.Metric.MetricName, query]));
    expect(Object.keys(byName).sort()).toEqual(['5xx', 'Count']);
    for (const query of Object.values(byName)) {
      expect(query.MetricStat!.Stat).toBe('Sum');
      expect(query.MetricStat!.Metric.Dimensions).toEqual([{ Name: 'ApiId', Value: { Ref: apiId } }]);
    }
    const expression = queries.find((query) => query.Expression)!.Expression!;
    expect(expression).toContain(`100 * ${byName['5xx']!.Id} / ${byName.Count!.Id}`);
    expect(alarm!.Properties).toMatchObject({
      Threshold: API_5XX_PERCENT_THRESHOLD,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
  });

  it('alarms on any Lambda throttle in the region', () => {
    const [alarm] = alarmOn(resources, 'AWS/Lambda', 'Throttles');
    expect(alarm!.Properties).toMatchObject({ Statistic: 'Sum', Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
    expect(alarm!.Properties.Dimensions).toBeUndefined();
  });

  it('alarms on the errors of every function of the stack, each counted once, at most 10 metrics an alarm', () => {
    const functionIds = postlaneFunctions(resources)
      .map(([id]) => id)
      .sort();
    const errorAlarms = alarmOn(resources, 'AWS/Lambda', 'Errors');
    const watched: string[] = [];

    for (const alarm of errorAlarms) {
      const queries = (alarm.Properties.Metrics as MetricQuery[]).filter((query) => query.MetricStat);
      expect(queries.length).toBeLessThanOrEqual(10);
      for (const query of queries) {
        expect(query.MetricStat!.Metric.Dimensions![0]!.Name).toBe('FunctionName');
        watched.push(referencedId(query.MetricStat!.Metric.Dimensions![0]!.Value));
      }
      expect(alarm.Properties.Threshold).toBe(1);
    }
    expect(watched.sort()).toEqual(functionIds);
  });

  it('alarms on any target EventBridge Scheduler dropped after its retries, in the default group the schedules live in', () => {
    const [alarm] = alarmOn(resources, 'AWS/Scheduler', 'InvocationDroppedCount');
    expect(alarm!.Properties).toMatchObject({
      Statistic: 'Sum',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Dimensions: [{ Name: 'ScheduleGroup', Value: 'default' }],
    });
  });

  it('alarms on any dead letter EventBridge Scheduler could not write (a broadcast start step then lost), in the same group', () => {
    const [alarm] = alarmOn(resources, 'AWS/Scheduler', 'InvocationsFailedToBeSentToDeadLetterCount');
    expect(alarm!.Properties).toMatchObject({
      Statistic: 'Sum',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Dimensions: [{ Name: 'ScheduleGroup', Value: 'default' }],
    });
  });

  it('alarms on the SES bounce and complaint rates at the levels AWS reviews an account', () => {
    const [bounces] = alarmOn(resources, 'AWS/SES', 'Reputation.BounceRate');
    const [complaints] = alarmOn(resources, 'AWS/SES', 'Reputation.ComplaintRate');
    expect(bounces!.Properties).toMatchObject({ Threshold: 0.05, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
    expect(complaints!.Properties).toMatchObject({ Threshold: 0.001, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
    expect([SES_BOUNCE_RATE_THRESHOLD, SES_COMPLAINT_RATE_THRESHOLD]).toEqual([0.05, 0.001]);
  });

  it('has no topic and no alarm actions without an alarm email', () => {
    expect(ofType(resources, 'AWS::SNS::Topic')).toEqual([]);
    for (const alarm of alarmsOf(resources)) expect(alarm.Properties.AlarmActions).toBeUndefined();
  });
});

describe('with postlane:alarmEmail', () => {
  const { stacks, extraId } = synthesizeWithEmail();

  it.each(stacks.map((resources, index) => [index, resources] as const))(
    'stack %i subscribes the email to a topic that every alarm notifies, when it fires and when it clears',
    (index, resources) => {
      const [[topicId]] = ofType(resources, 'AWS::SNS::Topic') as [[string, Resource]];
      expect(ofType(resources, 'AWS::SNS::Subscription').map(([, subscription]) => subscription.Properties)).toEqual([
        expect.objectContaining({ Protocol: 'email', Endpoint: 'ops@example.com', TopicArn: { Ref: topicId } }),
      ]);
      const alarms = ofType(resources, 'AWS::CloudWatch::Alarm');
      expect(alarms.length).toBeGreaterThanOrEqual(5);
      for (const [, alarm] of alarms) {
        expect(alarm.Properties.AlarmActions).toEqual([{ Ref: topicId }]);
        expect(alarm.Properties.OKActions).toEqual([{ Ref: topicId }]);
      }
      // An alarm another construct adds, after the alarms were built, notifies too.
      if (index === 0) expect(resources[extraId]!.Properties.AlarmActions).toEqual([{ Ref: topicId }]);
    },
  );

  it.each(stacks.map((resources, index) => [index, resources] as const))(
    'stack %i refuses publishing to the topic without TLS, and keeps notifications the email never took in a dead-letter queue',
    (_index, resources) => {
      const [[topicId]] = ofType(resources, 'AWS::SNS::Topic') as [[string, Resource]];
      const policies = ofType(resources, 'AWS::SNS::TopicPolicy').filter(([, policy]) => policy.Properties.Topics.map(referencedId).includes(topicId));
      expect(policies.flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement)).toContainEqual(
        expect.objectContaining({ Effect: 'Deny', Action: 'sns:Publish', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      );
      const [[, subscription]] = ofType(resources, 'AWS::SNS::Subscription') as [[string, Resource]];
      const deadLetterId = referencedId(subscription.Properties.RedrivePolicy.deadLetterTargetArn);
      expect(resources[deadLetterId]!.Properties).toMatchObject({
        QueueName: 'postlane-prod-alarm-email-dlq',
        SqsManagedSseEnabled: true,
        MessageRetentionPeriod: 14 * 24 * 3600,
      });
      // SNS may put notifications there, from this topic only.
      const statements = ofType(resources, 'AWS::SQS::QueuePolicy')
        .filter(([, policy]) => policy.Properties.Queues.map(referencedId).includes(deadLetterId))
        .flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement);
      expect(statements).toContainEqual(
        expect.objectContaining({
          Effect: 'Allow',
          Action: 'sqs:SendMessage',
          Principal: { Service: 'sns.amazonaws.com' },
          Condition: { ArnEquals: { 'aws:SourceArn': { Ref: topicId } } },
        }),
      );
      expect(statements).toContainEqual(expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }));
    },
  );

  it('refuses an alarm email that is not an address', () => {
    const app = new App({ context: { 'postlane:alarmEmail': 'ops-at-example' } });
    expect(() => readSettings(app.node)).toThrow(/postlane:alarmEmail/);
  });
});

describe('what the guides say the alarms and queues cost', () => {
  const guide = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
  /** CloudWatch bills an alarm by the metrics it reads; a math expression reads none of its own. */
  const billedMetrics = (resources: Resources) =>
    alarmsOf(resources).reduce(
      (total, alarm) =>
        total + (alarm.Properties.MetricName ? 1 : ((alarm.Properties.Metrics as MetricQuery[] | undefined) ?? []).filter((query) => query.MetricStat).length),
      0,
    );

  it.each([
    ['first region', home!],
    ['second region', replica!],
  ])('the %s reads as many alarm metrics as the deploying and architecture guides bill', (_name, resources) => {
    const metrics = billedMetrics(resources);

    expect(guide('docs/deploying.md')).toContain(`${metrics} metrics per region`);
    expect(guide('docs/deploying.md')).toContain(`$${(metrics / 10).toFixed(2)} a month per region`);
    expect(guide('docs/architecture.md')).toMatch(new RegExp(`${metrics} metrics, so \\$${(metrics / 10).toFixed(2)} a month`));
  });

  it('the worker queues Lambda polls are the ones the guide prices', () => {
    const polled = ofType(home!, 'AWS::Lambda::EventSourceMapping').filter(([, mapping]) => !mapping.Properties.StartingPosition);

    expect(guide('docs/deploying.md')).toContain(`each of the ${polled.length} worker queues`);
  });
});
