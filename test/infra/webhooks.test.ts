/**
 * The webhook delivery construct on its own (the regional stack wires it in
 * later): its two lanes' queues, the worker's event sources and grants, and
 * the alarms.
 */
import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { PostlaneTable } from '../../lib/table.ts';
import { WEBHOOK_BATCH_SIZE, WEBHOOK_MAX_CONCURRENCY, WEBHOOK_MAX_RECEIVES, WEBHOOK_SLOW_MAX_CONCURRENCY } from '#shared/webhooks/schedule.ts';
import { WEBHOOK_WORKER, WebhookDelivery } from '../../lib/webhooks.ts';
import { WORKER_QUEUE_ACTIONS } from '../../lib/worker-queue.ts';
import { EndpointFunction } from '../../lib/endpoint-function.ts';
import { ofType, pair, permissionsOf, referencedId, resourcesOf, testApp } from './template.ts';
import { expectDeadLetterAlarm, expectWorkerFedBy, expectWorkerGrants } from './worker-queue.ts';

const app = testApp();
const stack = new Stack(app, 'WebhooksTest', { env: { region: 'eu-west-1' } });
const table = new PostlaneTable(stack, 'Table', { tableName: 'postlane-test', replicaRegions: [] });
const webhooks = new WebhookDelivery(stack, 'Webhooks', { namePrefix: 'postlane-test', table, retentionDays: 45 });
// A function that records events, as the sending and feedback functions will.
const producer = new EndpointFunction(stack, 'Producer', { handler: 'feedback/ses-events', table, tableActions: ['PutItem'] });
webhooks.grantEnqueue(producer.function);
const resources = resourcesOf(Template.fromStack(stack));

const queueId = stack.resolve(webhooks.queue.queueArn)['Fn::GetAtt'][0] as string;
const deadLetterId = stack.resolve(webhooks.deadLetterQueue.queueArn)['Fn::GetAtt'][0] as string;
const slowQueueId = stack.resolve(webhooks.slowLane.queue.queueArn)['Fn::GetAtt'][0] as string;
const slowDeadLetterId = stack.resolve(webhooks.slowLane.deadLetterQueue.queueArn)['Fn::GetAtt'][0] as string;
const sendToBothLanes = [pair(stack, 'sqs:SendMessage', webhooks.queue.queueArn), pair(stack, 'sqs:SendMessage', webhooks.slowLane.queue.queueArn)];
const mappingOf = (queue: string) =>
  ofType(resources, 'AWS::Lambda::EventSourceMapping').find(([, mapping]) => referencedId(mapping.Properties.EventSourceArn) === queue)![1].Properties;
const workerId = ofType(resources, 'AWS::Lambda::Function').find(
  ([, fn]) => fn.Properties.Description === `Postlane functions/${WEBHOOK_WORKER.handler}.ts`,
)![0];
const producerId = ofType(resources, 'AWS::Lambda::Function').find(([, fn]) => fn.Properties.Description === 'Postlane functions/feedback/ses-events.ts')![0];

/** The queue `name` is encrypted and moves messages to its encrypted dead-letter queue `<name>-dlq`, kept 14 days. */
function expectQueueWithDeadLetters(queue: string, deadLetters: string, name: string): void {
  expect(resources[queue]!.Properties).toMatchObject({
    QueueName: name,
    SqsManagedSseEnabled: true,
    RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [deadLetters, 'Arn'] }, maxReceiveCount: WEBHOOK_MAX_RECEIVES },
    VisibilityTimeout: 6 * resources[workerId]!.Properties.Timeout,
  });
  expect(resources[deadLetters]!.Properties).toMatchObject({ QueueName: `${name}-dlq`, SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 24 * 3600 });
}

describe('webhook delivery', () => {
  it('is the encrypted queue postlane-<stage>-webhooks, moving messages to an encrypted dead-letter queue', () => {
    expectQueueWithDeadLetters(queueId, deadLetterId, 'postlane-test-webhooks');
    const guarded = ofType(resources, 'AWS::SQS::QueuePolicy').flatMap(([, policy]) => policy.Properties.Queues.map(referencedId));
    expect(guarded.sort()).toEqual([queueId, deadLetterId, slowQueueId, slowDeadLetterId].sort());
  });

  it('has a slow lane, postlane-<stage>-webhooks-slow, encrypted, with an encrypted dead-letter queue of its own', () => {
    expectQueueWithDeadLetters(slowQueueId, slowDeadLetterId, 'postlane-test-webhooks-slow');
  });

  it('feeds the worker batches from both lanes, reporting partial batch failures, each lane bounded in concurrency of its own', () => {
    expectWorkerFedBy(resources, queueId, workerId, WEBHOOK_BATCH_SIZE);
    expectWorkerFedBy(resources, slowQueueId, workerId, WEBHOOK_BATCH_SIZE);
    expect(mappingOf(slowQueueId).ScalingConfig).toEqual({ MaximumConcurrency: WEBHOOK_SLOW_MAX_CONCURRENCY });
    expect(mappingOf(queueId).ScalingConfig).toEqual({ MaximumConcurrency: WEBHOOK_MAX_CONCURRENCY });
  });

  it("grants the worker its table actions, both event sources' queue actions and SendMessage on both lanes for its next attempts, and nothing else", () => {
    expectWorkerGrants(stack, resources, workerId, webhooks.queue.queueArn, [
      ...WEBHOOK_WORKER.table.map((action) => pair(stack, `dynamodb:${action}`, table.tableArn)),
      ...WORKER_QUEUE_ACTIONS.map((action) => pair(stack, action, webhooks.slowLane.queue.queueArn)),
      ...sendToBothLanes,
    ]);
    expect(resources[workerId]!.Properties.Environment.Variables).toMatchObject({
      WEBHOOK_QUEUE_URL: { Ref: queueId },
      WEBHOOK_SLOW_QUEUE_URL: { Ref: slowQueueId },
      RETENTION_DAYS: '45',
    });
  });

  it('lets a function that records events send to both lanes, and names it the queues and the retention', () => {
    expect([...permissionsOf(stack, resources, producerId)].filter((entry) => entry.startsWith('sqs:'))).toEqual(sendToBothLanes);
    expect(resources[producerId]!.Properties.Environment.Variables).toMatchObject({
      WEBHOOK_QUEUE_URL: { Ref: queueId },
      WEBHOOK_SLOW_QUEUE_URL: { Ref: slowQueueId },
      RETENTION_DAYS: '45',
    });
  });

  it('alarms as soon as a message reaches either dead-letter queue', () => {
    expectDeadLetterAlarm(resources, deadLetterId);
    expectDeadLetterAlarm(resources, slowDeadLetterId);
  });
});
