/**
 * Issue 18's plumbing in each regional stack: the table's stream, the event
 * source mapping filtered to new event items that feeds the fan-out function,
 * its on-failure queue and alarm, the webhook delivery queue and worker, the
 * retention option (TTL attribute and RETENTION_DAYS) and the EventBridge option.
 */
import { describe, expect, it } from 'vitest';
import { TTL_ATTRIBUTE } from '#shared/platform/dynamodb/table.ts';
import { EVENT_STREAM_FILTER, FAN_OUT_BATCH_SIZE } from '#shared/events/stream-records.ts';
import { STREAM_VIEW_TYPE } from '#shared/platform/dynamodb/table.ts';
import { WEBHOOK_BATCH_SIZE } from '#shared/webhooks/schedule.ts';
import { EVENT_FAN_OUT, FAN_OUT_RETRY_ATTEMPTS, STREAM_READ_ACTIONS } from '../../lib/event-fan-out.ts';
import { WEBHOOK_WORKER } from '../../lib/webhooks.ts';
import { logPairs, ofType, pair, permissionsOf, resourcesOf, synthesize, tablePairs, type Resources } from './template.ts';
import { expectDeadLetterAlarm, expectWorkerFedBy } from './worker-queue.ts';

const functionId = (resources: Resources, handler: string) =>
  ofType(resources, 'AWS::Lambda::Function').find(([, fn]) => fn.Properties.Description === `Postlane functions/${handler}.ts`)![0];

const { stacks, settings } = synthesize();

describe.each(stacks.map(({ stack, template }) => [stack.stackName, stack, template] as const))('%s event fan-out', (_name, stack, template) => {
  const resources = resourcesOf(template);
  const fanOutId = functionId(resources, EVENT_FAN_OUT.handler);
  const failuresId = stack.resolve(stack.eventFanOut.failures.queueArn)['Fn::GetAtt'][0] as string;
  const webhookQueueId = stack.resolve(stack.webhooks.queue.queueArn)['Fn::GetAtt'][0] as string;
  const slowQueueId = stack.resolve(stack.webhooks.slowLane.queue.queueArn)['Fn::GetAtt'][0] as string;
  const streamArn = stack.resolve(stack.eventFanOut.streamArn);
  const mapping = ofType(resources, 'AWS::Lambda::EventSourceMapping').find(([, one]) => one.Properties.FunctionName.Ref === fanOutId)![1];

  it("reads the table's stream from the fan-out function, only new event items, with partial batch failures, bisection and an on-failure queue", () => {
    expect(mapping.Properties).toMatchObject({
      EventSourceArn: streamArn,
      StartingPosition: 'LATEST',
      BatchSize: FAN_OUT_BATCH_SIZE,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: FAN_OUT_RETRY_ATTEMPTS,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [failuresId, 'Arn'] } } },
      FilterCriteria: { Filters: [{ Pattern: JSON.stringify(EVENT_STREAM_FILTER) }] },
    });
  });

  it("grants the fan-out its table actions, the stream reads, SendMessage to both webhook lanes' queues and its failures queue, and nothing else", () => {
    expect(permissionsOf(stack, resources, fanOutId)).toEqual(
      new Set([
        ...logPairs(stack, resources, fanOutId),
        ...tablePairs(stack, EVENT_FAN_OUT.table, settings),
        ...['gsi1', 'gsi2', 'gsi3'].map((index) => pair(stack, 'dynamodb:Query', `${stack.table.tableArn}/index/${index}`)),
        ...STREAM_READ_ACTIONS.map((action) => pair(stack, action, stack.eventFanOut.streamArn)),
        pair(stack, 'sqs:SendMessage', stack.webhooks.queue.queueArn),
        pair(stack, 'sqs:SendMessage', stack.webhooks.slowLane.queue.queueArn),
        // The event source mapping sends a failed batch's description with the function's role.
        ...['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'].map((action) => pair(stack, action, stack.eventFanOut.failures.queueArn)),
      ]),
    );
    expect(resources[fanOutId]!.Properties.Environment.Variables).toMatchObject({
      WEBHOOK_QUEUE_URL: { Ref: webhookQueueId },
      WEBHOOK_SLOW_QUEUE_URL: { Ref: slowQueueId },
      RETENTION_DAYS: '30',
    });
    expect(resources[fanOutId]!.Properties.Environment.Variables.EVENT_BUS_NAME).toBeUndefined();
  });

  it('alarms as soon as a failed batch reaches the on-failure queue, and says where to find it', () => {
    expectDeadLetterAlarm(resources, failuresId);
    expect(resources[failuresId]!.Properties).toMatchObject({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 24 * 3600 });
    expect(template.toJSON().Outputs.EventFanOutFailuresQueueUrl.Value).toEqual({ Ref: failuresId });
  });

  it('runs the webhook worker off both lanes, each with a dead-letter alarm and its URL output', () => {
    const deadLetterId = stack.resolve(stack.webhooks.deadLetterQueue.queueArn)['Fn::GetAtt'][0] as string;
    const slowDeadLetterId = stack.resolve(stack.webhooks.slowLane.deadLetterQueue.queueArn)['Fn::GetAtt'][0] as string;
    for (const [queue, deadLetters, output] of [
      [webhookQueueId, deadLetterId, 'WebhookDeadLetterQueueUrl'],
      [slowQueueId, slowDeadLetterId, 'WebhookSlowDeadLetterQueueUrl'],
    ] as const) {
      expectWorkerFedBy(resources, queue, functionId(resources, WEBHOOK_WORKER.handler), WEBHOOK_BATCH_SIZE);
      expectDeadLetterAlarm(resources, deadLetters);
      expect(template.toJSON().Outputs[output].Value).toEqual({ Ref: deadLetters });
    }
  });

  it('names the retention to every function, so whatever expires expires after the same days', () => {
    for (const [, fn] of ofType(resources, 'AWS::Lambda::Function').filter(([, one]) => one.Properties.Description?.startsWith('Postlane functions/'))) {
      expect(fn.Properties.Environment.Variables.RETENTION_DAYS).toBe('30');
    }
  });
});

describe('the table', () => {
  const [home] = stacks;
  const table = ofType(resourcesOf(home!.template), 'AWS::DynamoDB::GlobalTable')[0]![1];

  it('has a stream and removes expired items by their TTL attribute', () => {
    expect(table.Properties.StreamSpecification).toEqual({ StreamViewType: STREAM_VIEW_TYPE });
    expect(table.Properties.TimeToLiveSpecification).toEqual({ AttributeName: TTL_ATTRIBUTE, Enabled: true });
  });

  it("reads a replica's stream ARN from the table at deploy time (CloudFormation knows the replica only by name)", () => {
    const replica = stacks[1]!;
    const resources = resourcesOf(replica.template);
    const [, lookup] = ofType(resources, 'Custom::AWS')[0]!;
    expect(JSON.stringify(lookup.Properties.Update)).toContain('describeTable');
    expect(replica.stack.resolve(replica.stack.eventFanOut.streamArn)).toEqual({ 'Fn::GetAtt': [expect.any(String), 'Table.LatestStreamArn'] });
  });
});

describe('options', () => {
  it('postlane:retentionDays sets RETENTION_DAYS everywhere; out of range is refused', () => {
    const { stacks: custom } = synthesize({ 'postlane:retentionDays': '90' });
    for (const { template } of custom) {
      const variables = ofType(resourcesOf(template), 'AWS::Lambda::Function')
        .filter(([, fn]) => fn.Properties.Description?.startsWith('Postlane functions/'))
        .map(([, fn]) => fn.Properties.Environment.Variables.RETENTION_DAYS);
      expect(new Set(variables)).toEqual(new Set(['90']));
    }
    for (const bad of ['0', '3651', '1.5', 'thirty']) expect(() => synthesize({ 'postlane:retentionDays': bad })).toThrow(/postlane:retentionDays/);
  });

  it('postlane:eventBus puts events on that bus: EVENT_BUS_NAME and events:PutEvents on that bus only', () => {
    const { stacks: custom } = synthesize({ 'postlane:eventBus': 'customer-events' });
    for (const { stack, template } of custom) {
      const resources = resourcesOf(template);
      const fanOutId = functionId(resources, EVENT_FAN_OUT.handler);
      expect(resources[fanOutId]!.Properties.Environment.Variables.EVENT_BUS_NAME).toBe('customer-events');
      const granted = [...permissionsOf(stack, resources, fanOutId)].filter((entry) => entry.startsWith('events:'));
      expect(granted).toEqual([
        pair(stack, 'events:PutEvents', stack.formatArn({ service: 'events', resource: 'event-bus', resourceName: 'customer-events' })),
      ]);
      // No other function may put events.
      for (const [id] of ofType(resources, 'AWS::Lambda::Function').filter(([other]) => other !== fanOutId)) {
        expect([...permissionsOf(stack, resources, id)].filter((entry) => entry.startsWith('events:'))).toEqual([]);
      }
    }
    expect(() => synthesize({ 'postlane:eventBus': 'arn:aws:events:us-east-1:1:event-bus/x' })).toThrow(/postlane:eventBus/);
  });
});
