import type { InvocationContext } from './invocation.ts';
import { inInvocation } from './invocation.ts';

/**
 * A function EventBridge Scheduler invokes: `run` inside the invocation's
 * frame (invocation.ts). A throw fails the invocation, for the scheduler's
 * retries and the `LambdaErrors` alarm; the schedule's payload is not read.
 *
 * `export const handler = scheduledJob(() => reconcileSuppressionList(new Date()))`
 */
export function scheduledJob<R>(run: () => Promise<R>): (event: unknown, context?: InvocationContext) => Promise<R> {
  return (_event, context) => inInvocation(context, run);
}
