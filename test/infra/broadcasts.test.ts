import { describe, expect, it } from 'vitest';
import { ROUTES } from '#functions/routes.ts';
import { BROADCAST_WORKER } from '../../lib/broadcasts.ts';
import { BROADCAST_MAX_CONCURRENCY, BROADCAST_SCHEDULE_RETRY, BROADCAST_WORKER_BATCH_SIZE } from '#shared/broadcasts/policy.ts';
import { ofType, pair, permissionsOf, postlaneFunctions, referencedId, resourcesOf, rolePermissionsOf, synthesize } from './template.ts';
import { expectDeadLetterAlarm, expectWorkerFedBy } from './worker-queue.ts';

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

  describe("the schedules' dead letters", () => {
    const deadLettersId = referencedId(stack.resolve(stack.broadcasts.scheduleDeadLetterQueue.queueArn));
    const deadLettersArn = { 'Fn::GetAtt': [deadLettersId, 'Arn'] };
    const roleArn = stack.resolve(stack.broadcasts.schedulerRole.roleArn);

    it('are a standard queue of their own, encrypted, kept 14 days for the replay, and alarmed at the first message', () => {
      expect(deadLettersId).not.toBe(referencedId(stack.resolve(stack.broadcasts.deadLetterQueue.queueArn)));
      expect(resources[deadLettersId]!.Properties).toEqual({
        QueueName: 'postlane-prod-broadcast-schedules-dlq',
        SqsManagedSseEnabled: true,
        MessageRetentionPeriod: 14 * 24 * 3600,
      });
      expectDeadLetterAlarm(resources, deadLettersId);
    });

    it('are written by the role Scheduler assumes, which may send to them and to the broadcast queue, and do nothing else', () => {
      const roleId = referencedId(roleArn);
      expect(resources[roleId]!.Properties.AssumeRolePolicyDocument.Statement).toEqual([
        expect.objectContaining({ Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'scheduler.amazonaws.com' } }),
      ]);
      const queueArn = stack.broadcasts.queue.queueArn;
      expect(rolePermissionsOf(stack, resources, roleId)).toEqual(
        new Set([
          ...['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'].map((action) => pair(stack, action, queueArn)),
          pair(stack, 'sqs:SendMessage', deadLettersArn),
        ]),
      );
    });

    it('are named, with the queue and the role, to every function that creates or moves a schedule, and to no other', () => {
      const schedulers = postlaneFunctions(resources).filter(([, fn]) => fn.Properties.Environment.Variables.BROADCAST_QUEUE_ARN !== undefined);
      const handlers = [...new Set(ROUTES.filter((route) => route.scheduler).map((route) => route.handler))];
      expect(schedulers.map(([, fn]) => fn.Properties.Description).sort()).toEqual(handlers.map((handler) => `Postlane functions/${handler}.ts`).sort());
      for (const [, fn] of postlaneFunctions(resources)) {
        const variables = fn.Properties.Environment.Variables;
        if (variables.BROADCAST_QUEUE_ARN === undefined) {
          expect(variables.BROADCAST_SCHEDULE_DLQ_ARN, fn.Properties.Description).toBeUndefined();
          continue;
        }
        expect(variables, fn.Properties.Description).toMatchObject({
          BROADCAST_QUEUE_ARN: stack.resolve(stack.broadcasts.queue.queueArn),
          BROADCAST_SCHEDULER_ROLE_ARN: roleArn,
          BROADCAST_SCHEDULE_DLQ_ARN: deadLettersArn,
        });
      }
    });

    it("take what Scheduler gave up on under the schedules' retry policy, which is within Scheduler's bounds", () => {
      // CreateSchedule's bounds: an age of 60 s to a day, 0 to 185 retries.
      expect(BROADCAST_SCHEDULE_RETRY.MaximumEventAgeInSeconds).toBeGreaterThanOrEqual(60);
      expect(BROADCAST_SCHEDULE_RETRY.MaximumEventAgeInSeconds).toBeLessThanOrEqual(86_400);
      expect(BROADCAST_SCHEDULE_RETRY.MaximumRetryAttempts).toBeGreaterThanOrEqual(0);
      expect(BROADCAST_SCHEDULE_RETRY.MaximumRetryAttempts).toBeLessThanOrEqual(185);
    });
  });
});
