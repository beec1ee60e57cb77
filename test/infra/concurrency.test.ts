/**
 * No worker can starve the API: every queue's event source runs at most its
 * declared number of invocations at once, the same constant the local poller
 * honours, and all of them together stay within a tenth of a region's
 * default concurrency (docs/operations.md, "Concurrency").
 */
import { describe, expect, it } from 'vitest';
import { BROADCAST_MAX_CONCURRENCY } from '#shared/broadcasts/policy.ts';
import { FEEDBACK_MAX_CONCURRENCY } from '#shared/feedback/policy.ts';
import { EXPORT_MAX_CONCURRENCY } from '#shared/contacts/export-policy.ts';
import { RETRY_MAX_CONCURRENCY } from '#shared/sending/retry-policy.ts';
import { WEBHOOK_MAX_CONCURRENCY, WEBHOOK_SLOW_MAX_CONCURRENCY } from '#shared/webhooks/schedule.ts';
import { REGION_CONCURRENCY, WORKER_CONCURRENCY_BUDGET } from '../../lib/worker-queue.ts';
import { ofType, referencedId, resourcesOf, synthesize } from './template.ts';

const { stacks } = synthesize();

/** SQS's least MaximumConcurrency. */
const SQS_MIN_CONCURRENCY = 2;

describe.each(stacks.map(({ stack, template }) => [stack.stackName, stack, template] as const))('%s event sources', (_name, stack, template) => {
  const resources = resourcesOf(template);
  const mappings = ofType(resources, 'AWS::Lambda::EventSourceMapping');
  const queueId = (queue: { queueArn: string }) => stack.resolve(queue.queueArn)['Fn::GetAtt'][0] as string;
  /** Each queue a worker drains, with the cap its module declares. */
  const declared: Record<string, number> = {
    [queueId(stack.retryQueue.queue)]: RETRY_MAX_CONCURRENCY,
    [queueId(stack.webhooks.queue)]: WEBHOOK_MAX_CONCURRENCY,
    [queueId(stack.webhooks.slowLane.queue)]: WEBHOOK_SLOW_MAX_CONCURRENCY,
    [queueId(stack.broadcasts.queue)]: BROADCAST_MAX_CONCURRENCY,
    [queueId(stack.feedback.queue)]: FEEDBACK_MAX_CONCURRENCY,
    [queueId(stack.exports.queue)]: EXPORT_MAX_CONCURRENCY,
  };
  const fromQueues = mappings.filter(([, mapping]) => resources[referencedId(mapping.Properties.EventSourceArn)]?.Type === 'AWS::SQS::Queue');

  it('caps every queue event source at the concurrency its module declares', () => {
    const caps = Object.fromEntries(
      fromQueues.map(([, mapping]) => [referencedId(mapping.Properties.EventSourceArn), mapping.Properties.ScalingConfig?.MaximumConcurrency]),
    );
    expect(caps).toEqual(declared);
    for (const cap of Object.values(caps)) expect(cap).toBeGreaterThanOrEqual(SQS_MIN_CONCURRENCY);
  });

  it(`leaves at least ${REGION_CONCURRENCY - WORKER_CONCURRENCY_BUDGET} of a region's ${REGION_CONCURRENCY} concurrent executions to the API`, () => {
    const total = Object.values(declared).reduce((sum, cap) => sum + cap, 0);
    expect(total).toBeLessThanOrEqual(WORKER_CONCURRENCY_BUDGET);
  });

  it("runs one fan-out per stream shard, the only event source SQS's maximum cannot cap", () => {
    const others = mappings.filter(([id]) => !fromQueues.some(([queueMapping]) => queueMapping === id));
    expect(others).toHaveLength(1);
    expect(others[0]![1].Properties).toMatchObject({ ParallelizationFactor: 1 });
  });
});
