/**
 * The frame every Lambda invocation that no route makes runs in (queue
 * batches, stream batches, schedules), as the endpoint factory gives one to
 * every request (shared/platform/http/endpoint.ts): the invocation's log
 * context and its region scope.
 */
import type { Context } from 'aws-lambda';
import { inRegionScope } from '#shared/platform/dynamodb/regions.ts';
import { withLogContext } from '#shared/platform/log.ts';

/** What the workers read of Lambda's context; optional, so a test or a local poller may leave it out. */
export type InvocationContext = Pick<Context, 'awsRequestId'> | undefined;

/** The fields every line of the invocation carries: Lambda's request id, as in its `REPORT` lines. */
export function invocationLogFields(context: InvocationContext): Record<string, unknown> {
  return { lambdaRequestId: context?.awsRequestId };
}

/**
 * Runs `fn` as one invocation: every line it logs carries the request id, and
 * the homes of accounts it learns are remembered until it ends, never into
 * the next invocation (an `account move` in between is followed).
 */
export function inInvocation<T>(context: InvocationContext, fn: () => Promise<T>): Promise<T> {
  return withLogContext(invocationLogFields(context), () => inRegionScope(fn));
}
