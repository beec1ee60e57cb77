import { describe, expect, it } from 'vitest';
import { BROADCAST_WORKER } from '../../lib/broadcasts.ts';
import { BROADCAST_MAX_CONCURRENCY, BROADCAST_WORKER_BATCH_SIZE } from '#shared/broadcasts/policy.ts';
import { ofType, pair, permissionsOf, postlaneFunctions, referencedId, resourcesOf, synthesize } from './template.ts';
import { expectWorkerFedBy } from './worker-queue.ts';

const { stacks } = synthesize();

describe.each(stacks.map(({ stack, template }) => [stack.stackName, stack, template] as const))('%s broadcast worker', (_name, stack, template) => {
  const resources = resourcesOf(template);
  const workerId = ofType(resources, 'AWS::Lambda::Function').find(
    ([, fn]) => fn.Properties.Description === `Postlane functions/${BROADCAST_WORKER.handler}.ts`,
  )![0];

  it("may read SES's sending quota, which it paces by (GetAccount has no resource-level permission), and no other function may", () => {
    expect(BROADCAST_WORKER.sesAccount).toEqual(['GetAccount']);
    expect(permissionsOf(stack, resources, workerId)).toContain(pair(stack, 'ses:GetAccount', '*'));
    const others = postlaneFunctions(resources).filter(([id]) => id !== workerId);
    for (const [id] of others) {
      expect(
        [...permissionsOf(stack, resources, id)].filter((permission) => permission.startsWith('ses:GetAccount ')),
        id,
      ).toEqual([]);
    }
  });

  it('is fed one step at a time, reporting partial batch failures, by at most BROADCAST_MAX_CONCURRENCY workers at once', () => {
    const queueId = referencedId(stack.resolve(stack.broadcasts.queue.queueArn));
    expectWorkerFedBy(resources, queueId, workerId, BROADCAST_WORKER_BATCH_SIZE);
    const [[, mapping]] = ofType(resources, 'AWS::Lambda::EventSourceMapping').filter(([, m]) => referencedId(m.Properties.EventSourceArn) === queueId) as [
      [string, any],
    ];
    expect(mapping.Properties.ScalingConfig).toEqual({ MaximumConcurrency: BROADCAST_MAX_CONCURRENCY });
  });
});
