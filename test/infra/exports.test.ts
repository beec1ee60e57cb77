/**
 * The export queue (lib/exports.ts): its worker, fed one job at a time by at
 * most EXPORT_MAX_CONCURRENCY invocations, granted exactly what it does, with
 * a visibility timeout that a stale record's age outlasts.
 */
import { describe, expect, it } from 'vitest';
import { GLOBAL_INDEXES } from '#shared/platform/dynamodb/table.ts';
import {
  EXPORT_MAX_CONCURRENCY,
  EXPORT_MAX_RECEIVES,
  EXPORT_STALE_MS,
  EXPORT_WORKER_BATCH_SIZE,
  EXPORT_WORKER_MEMORY_MB,
  EXPORT_WORKER_TIMEOUT_SECONDS,
} from '#shared/contacts/export-policy.ts';
import { EXPORT_WORKER } from '../../lib/exports.ts';
import { ofType, pair, postlaneFunctions, referencedId, resourcesOf, synthesize, tablePairs } from './template.ts';
import { expectDeadLetterAlarm, expectWorkerFedBy, expectWorkerGrants } from './worker-queue.ts';

const { stacks, settings } = synthesize();

describe.each(stacks.map(({ stack, template }) => [stack.stackName, stack, template] as const))('%s export queue', (_name, stack, template) => {
  const resources = resourcesOf(template);
  const queueId = referencedId(stack.resolve(stack.exports.queue.queueArn));
  const deadLetterId = referencedId(stack.resolve(stack.exports.deadLetterQueue.queueArn));
  const [workerId, worker] = ofType(resources, 'AWS::Lambda::Function').find(
    ([, fn]) => fn.Properties.Description === `Postlane functions/${EXPORT_WORKER.handler}.ts`,
  )!;

  it('moves a job to an encrypted, alarmed dead-letter queue after its last receive, and a stale record outlasts every receive', () => {
    const queue = resources[queueId]!.Properties;
    expect(queue).toMatchObject({
      QueueName: 'postlane-prod-exports',
      SqsManagedSseEnabled: true,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [deadLetterId, 'Arn'] }, maxReceiveCount: EXPORT_MAX_RECEIVES },
      VisibilityTimeout: 6 * EXPORT_WORKER_TIMEOUT_SECONDS,
    });
    expect(worker.Properties).toMatchObject({ Timeout: EXPORT_WORKER_TIMEOUT_SECONDS, MemorySize: EXPORT_WORKER_MEMORY_MB });
    // A record is read as failed only once no receive's worker can still be running it.
    expect(EXPORT_STALE_MS).toBeGreaterThan(EXPORT_MAX_RECEIVES * queue.VisibilityTimeout * 1000);
    expectDeadLetterAlarm(resources, deadLetterId);
  });

  it('feeds the worker one job at a time, at most EXPORT_MAX_CONCURRENCY at once', () => {
    expectWorkerFedBy(resources, queueId, workerId, EXPORT_WORKER_BATCH_SIZE);
    const mapping = ofType(resources, 'AWS::Lambda::EventSourceMapping').find(([, m]) => referencedId(m.Properties.EventSourceArn) === queueId)![1];
    expect(mapping.Properties.ScalingConfig).toEqual({ MaximumConcurrency: EXPORT_MAX_CONCURRENCY });
  });

  it("grants the worker its record's updates, Queries of the audience index, writing under exports/ and the event source's queue actions, nothing else", () => {
    expectWorkerGrants(stack, resources, workerId, stack.exports.queue.queueArn, [
      ...tablePairs(stack, EXPORT_WORKER.table, settings),
      ...GLOBAL_INDEXES.map((index) => pair(stack, 'dynamodb:Query', `${stack.table.tableArn}/index/${index.indexName}`)),
      pair(stack, 's3:PutObject', stack.attachments.bucket.arnForObjects('exports/*')),
    ]);
  });

  it('names the queue to the export route and the worker only', () => {
    for (const [id, fn] of postlaneFunctions(resources)) {
      const handler = /functions\/(.+)\.ts$/.exec(fn.Properties.Description)![1]!;
      const url = fn.Properties.Environment.Variables.EXPORT_QUEUE_URL;
      if (handler === 'audiences/export') expect(url, handler).toEqual({ Ref: queueId });
      else expect(url, `${handler} ${id}`).toBeUndefined();
    }
  });
});
