/**
 * The webhook delivery construct on its own (the regional stack wires it in
 * later): its queues, the worker's event source and grants, and the alarm.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { PostlaneTable } from '../../lib/table.ts';
import { WEBHOOK_BATCH_SIZE, WEBHOOK_MAX_RECEIVES } from '#shared/webhooks/schedule.ts';
import { WEBHOOK_WORKER, WebhookDelivery } from '../../lib/webhooks.ts';
import { EndpointFunction } from '../../lib/endpoint-function.ts';
import { ofType, pair, permissionsOf, referencedId, resourcesOf } from './template.ts';
import { expectDeadLetterAlarm, expectWorkerFedBy, expectWorkerGrants } from './worker-queue.ts';

const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
const stack = new Stack(app, 'WebhooksTest', { env: { region: 'eu-west-1' } });
const table = new PostlaneTable(stack, 'Table', { tableName: 'postlane-test', replicaRegions: [] });
const webhooks = new WebhookDelivery(stack, 'Webhooks', { namePrefix: 'postlane-test', table, retentionDays: 45 });
// A function that records events, as the sending and feedback functions will.
const producer = new EndpointFunction(stack, 'Producer', { handler: 'feedback/ses-events', table, tableActions: ['PutItem'] });
webhooks.grantEnqueue(producer.function);
const resources = resourcesOf(Template.fromStack(stack));

const queueId = stack.resolve(webhooks.queue.queueArn)['Fn::GetAtt'][0] as string;
const deadLetterId = stack.resolve(webhooks.deadLetterQueue.queueArn)['Fn::GetAtt'][0] as string;
const workerId = ofType(resources, 'AWS::Lambda::Function').find(
  ([, fn]) => fn.Properties.Description === `Postlane functions/${WEBHOOK_WORKER.handler}.ts`,
)![0];
const producerId = ofType(resources, 'AWS::Lambda::Function').find(([, fn]) => fn.Properties.Description === 'Postlane functions/feedback/ses-events.ts')![0];

describe('webhook delivery', () => {
  it('is the encrypted queue postlane-<stage>-webhooks, moving messages to an encrypted dead-letter queue', () => {
    expect(resources[queueId]!.Properties).toMatchObject({
      QueueName: 'postlane-test-webhooks',
      SqsManagedSseEnabled: true,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [deadLetterId, 'Arn'] }, maxReceiveCount: WEBHOOK_MAX_RECEIVES },
      VisibilityTimeout: 6 * resources[workerId]!.Properties.Timeout,
    });
    expect(resources[deadLetterId]!.Properties).toMatchObject({
      QueueName: 'postlane-test-webhooks-dlq',
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 14 * 24 * 3600,
    });
    const guarded = ofType(resources, 'AWS::SQS::QueuePolicy').flatMap(([, policy]) => policy.Properties.Queues.map(referencedId));
    expect(guarded.sort()).toEqual([queueId, deadLetterId].sort());
  });

  it('feeds the worker batches, reporting partial batch failures', () => {
    expectWorkerFedBy(resources, queueId, workerId, WEBHOOK_BATCH_SIZE);
  });

  it("grants the worker its table actions, the event source's queue actions and SendMessage for its next attempts, and nothing else", () => {
    expectWorkerGrants(stack, resources, workerId, webhooks.queue.queueArn, [
      ...WEBHOOK_WORKER.table.map((action) => pair(stack, `dynamodb:${action}`, table.tableArn)),
      pair(stack, 'sqs:SendMessage', webhooks.queue.queueArn),
    ]);
    expect(resources[workerId]!.Properties.Environment.Variables).toMatchObject({ WEBHOOK_QUEUE_URL: { Ref: queueId }, RETENTION_DAYS: '45' });
  });

  it('lets a function that records events send to the queue, and names it the queue and the retention', () => {
    expect([...permissionsOf(stack, resources, producerId)].filter((entry) => entry.startsWith('sqs:'))).toEqual([
      pair(stack, 'sqs:SendMessage', webhooks.queue.queueArn),
    ]);
    expect(resources[producerId]!.Properties.Environment.Variables).toMatchObject({ WEBHOOK_QUEUE_URL: { Ref: queueId }, RETENTION_DAYS: '45' });
  });

  it('alarms as soon as a message reaches the dead-letter queue', () => {
    expectDeadLetterAlarm(resources, deadLetterId);
  });
});
