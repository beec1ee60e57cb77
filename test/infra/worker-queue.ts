/** What lib/worker-queue.ts builds for each of its users, checked the same way in each stack. */
import type { Stack } from 'aws-cdk-lib';
import { expect } from 'vitest';
import { WORKER_QUEUE_ACTIONS } from '../../lib/worker-queue.ts';
import { logPairs, ofType, pair, permissionsOf, referencedId, type Resources } from './template.ts';

/** The queue's one event source mapping feeds the worker batches from it and takes back only the failed messages. */
export function expectWorkerFedBy(resources: Resources, queueId: string, workerId: string, batchSize: number): void {
  // A regional stack has one per worker queue (retry, webhooks, broadcasts) and the table stream's.
  const mappings = ofType(resources, 'AWS::Lambda::EventSourceMapping').filter(([, mapping]) => referencedId(mapping.Properties.EventSourceArn) === queueId);
  expect(mappings).toHaveLength(1);
  expect(mappings[0]![1].Properties).toMatchObject({
    EventSourceArn: { 'Fn::GetAtt': [queueId, 'Arn'] },
    FunctionName: { Ref: workerId },
    BatchSize: batchSize,
    FunctionResponseTypes: ['ReportBatchItemFailures'],
  });
}

/** One alarm on the dead-letter queue, raised by its first visible message. */
export function expectDeadLetterAlarm(resources: Resources, deadLetterId: string): void {
  const alarms = ofType(resources, 'AWS::CloudWatch::Alarm').filter(
    ([, alarm]) => alarm.Properties.Namespace === 'AWS/SQS' && JSON.stringify(alarm.Properties.Dimensions).includes(deadLetterId),
  );
  expect(alarms).toHaveLength(1);
  expect(alarms[0]![1].Properties).toMatchObject({
    MetricName: 'ApproximateNumberOfMessagesVisible',
    Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [deadLetterId, 'QueueName'] } }],
    ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    Threshold: 1,
    EvaluationPeriods: 1,
  });
}

/** The worker's role holds its log pairs, the event source's actions on `queueArn`, `others`, and nothing else. */
export function expectWorkerGrants(stack: Stack, resources: Resources, workerId: string, queueArn: string, others: string[]): void {
  expect(permissionsOf(stack, resources, workerId)).toEqual(
    new Set([...logPairs(stack, resources, workerId), ...WORKER_QUEUE_ACTIONS.map((action) => pair(stack, action, queueArn)), ...others]),
  );
}
