/**
 * Scheduled broadcasts: one EventBridge Scheduler one-time schedule per
 * broadcast, `at(…)` its `scheduledAt`, whose target puts the broadcast's
 * `start` step on the broadcast queue (the step then runs like any other, with
 * SQS's retries and dead-letter queue). The schedule deletes itself once it
 * has fired. A step Scheduler could not put on the queue within its retry
 * policy goes to the schedules' dead-letter queue, for `admin broadcasts
 * replay` (shared/feedback/dead-letters.ts).
 */
import type { SchedulerClient } from '@aws-sdk/client-scheduler';
import { config } from '#shared/platform/config.ts';
import { BROADCAST_SCHEDULE_RETRY } from './policy.ts';
import type { StartStep } from './queue.ts';

export interface BroadcastScheduler {
  /** Fires the broadcast's start at `at`, replacing any schedule it had. */
  schedule(accountId: string, broadcastId: string, at: Date): Promise<void>;
  /** Removes its schedule; none is fine. */
  unschedule(accountId: string, broadcastId: string): Promise<void>;
}

/**
 * The client and its commands (scheduler-client.ts), loaded on the first
 * schedule or unschedule: most broadcasts are sent at once, and the routes
 * that may schedule (create, update, send, cancel, delete) then never load them.
 */
function schedulerSdk(): Promise<typeof import('./scheduler-client.ts')> {
  return import('./scheduler-client.ts');
}

/** Schedule names are at most 64 characters of [0-9a-zA-Z-_.]: the two ids fit (24 each). */
export function scheduleName(accountId: string, broadcastId: string): string {
  return `${accountId}.${broadcastId}`;
}

/** `at(2026-12-01T09:00:00)`, in UTC: Scheduler takes whole seconds. */
export function atExpression(at: Date): string {
  return `at(${at.toISOString().slice(0, 19)})`;
}

/** Where a schedule's target puts the start step, the role Scheduler assumes for it (and for the dead letter), and the dead letters. */
export interface ScheduleTargets {
  queueArn: string;
  roleArn: string;
  deadLetterArn: string;
}

/** `client`: the module's own, unless a test gives another. */
export function eventBridgeScheduler({ queueArn, roleArn, deadLetterArn }: ScheduleTargets, client?: Pick<SchedulerClient, 'send'>): BroadcastScheduler {
  const definition = (accountId: string, broadcastId: string, at: Date) => {
    // The time it is for: a step that arrives once the broadcast has moved (a replay, a late delivery) is stale.
    const step: StartStep = { kind: 'start', accountId, broadcastId, scheduledAt: at.toISOString() };
    return {
      Name: scheduleName(accountId, broadcastId),
      ScheduleExpression: atExpression(at),
      ScheduleExpressionTimezone: 'UTC',
      FlexibleTimeWindow: { Mode: 'OFF' as const },
      ActionAfterCompletion: 'DELETE' as const,
      Target: {
        Arn: queueArn,
        RoleArn: roleArn,
        Input: JSON.stringify(step),
        RetryPolicy: { ...BROADCAST_SCHEDULE_RETRY },
        DeadLetterConfig: { Arn: deadLetterArn },
      },
    };
  };
  return {
    async schedule(accountId, broadcastId, at) {
      const sdk = await schedulerSdk();
      const sender = client ?? sdk.scheduler;
      const input = definition(accountId, broadcastId, at);
      try {
        await sender.send(new sdk.CreateScheduleCommand(input));
      } catch (error) {
        if (!(error instanceof sdk.ConflictException)) throw error;
        await sender.send(new sdk.UpdateScheduleCommand(input));
      }
    },
    async unschedule(accountId, broadcastId) {
      const sdk = await schedulerSdk();
      try {
        await (client ?? sdk.scheduler).send(new sdk.DeleteScheduleCommand({ Name: scheduleName(accountId, broadcastId) }));
      } catch (error) {
        if (!(error instanceof sdk.ResourceNotFoundException)) throw error;
      }
    },
  };
}

/** The deployment's scheduler; without its queue, role and dead letters configured, scheduling fails loudly. */
export function broadcastScheduler(): BroadcastScheduler {
  const { BROADCAST_QUEUE_ARN: queueArn, BROADCAST_SCHEDULER_ROLE_ARN: roleArn, BROADCAST_SCHEDULE_DLQ_ARN: deadLetterArn } = config;
  if (!queueArn || !roleArn || !deadLetterArn)
    throw new Error('BROADCAST_QUEUE_ARN, BROADCAST_SCHEDULER_ROLE_ARN and BROADCAST_SCHEDULE_DLQ_ARN must be set to schedule broadcasts');
  return eventBridgeScheduler({ queueArn, roleArn, deadLetterArn });
}
