/**
 * The DynamoDB fault seam: middleware the tests attach to the handlers' own
 * client (shared/data/client.ts) while a fault is wanted, and detach after,
 * so the production module carries no test code.
 */
import { dynamo } from '#shared/data/client.ts';

/**
 * Decides per DynamoDB command (`PutItemCommand`, `TransactWriteItemsCommand`)
 * whether it fails, before it reaches DynamoDB or after DynamoDB applied it and
 * the answer was lost, for faults DynamoDB Local cannot produce on demand.
 */
export type FaultHook = (command: string, input: Record<string, unknown>) => { error: Error; after?: boolean } | undefined;

const NAME = 'postlaneFaultHook';

/** Routes every call of the client through `hook`; `undefined` detaches it. */
export function setFaultHook(hook: FaultHook | undefined): void {
  dynamo.middlewareStack.remove(NAME);
  if (!hook) return;
  // Initialize step: ahead of the SDK's own retries, so a fault stands for one that outlasted them.
  dynamo.middlewareStack.add((next, context) => async (args) => {
    const fault = hook(context.commandName ?? '', args.input as Record<string, unknown>);
    if (!fault) return next(args);
    if (fault.after) await next(args);
    throw fault.error;
  }, { step: 'initialize', name: NAME });
}
