/**
 * The DynamoDB fault seam: middleware the tests attach to the handlers' own
 * client (shared/platform/dynamodb/client.ts) while a fault is wanted, and detach after,
 * so the production module carries no test code.
 */
import { dynamo } from '#shared/platform/dynamodb/client.ts';

/**
 * Decides per DynamoDB command (`PutItemCommand`, `TransactWriteItemsCommand`)
 * whether it fails, before it reaches DynamoDB or after DynamoDB applied it and
 * the answer was lost, for faults DynamoDB Local cannot produce on demand.
 */
export type FaultHook = (command: string, input: Record<string, unknown>) => Fault | undefined;

/**
 * `error`: the call fails (after DynamoDB applied it, with `after`).
 * `unprocessed`: a BatchGetItem or BatchWriteItem is answered in part, as
 * under throttling: DynamoDB processes the first half of its requests
 * (`half`, rounded up: a single one is processed) or `none` of them, and
 * returns the rest as `UnprocessedKeys` / `UnprocessedItems`.
 */
export type Fault = { error: Error; after?: boolean } | { unprocessed: 'half' | 'none' };

const NAME = 'postlaneFaultHook';

/** Routes every call of the client through `hook`; `undefined` detaches it. */
export function setFaultHook(hook: FaultHook | undefined): void {
  dynamo.middlewareStack.remove(NAME);
  if (!hook) return;
  // Initialize step: ahead of the SDK's own retries, so a fault stands for one that outlasted them.
  dynamo.middlewareStack.add(
    (next, context) => async (args) => {
      const fault = hook(context.commandName ?? '', args.input as Record<string, unknown>);
      if (!fault) return next(args);
      if ('unprocessed' in fault) return answerInPart(next, args, context.commandName ?? '', fault.unprocessed);
      if (fault.after) await next(args);
      throw fault.error;
    },
    { step: 'initialize', name: NAME },
  );
}

type BatchRequests = Record<string, { Keys?: unknown[] } | unknown[]>;

/** Sends part of a batch call's requests (in DynamoDB's wire format: the document client marshalled them already) and returns the rest unprocessed. */
async function answerInPart<Output extends object>(
  next: (args: { input: object }) => Promise<{ output: Output; response: unknown }>,
  args: { input: object },
  command: string,
  processed: 'half' | 'none',
): Promise<{ output: Output; response: unknown }> {
  const input = args.input as { RequestItems: BatchRequests };
  const [table, requests] = Object.entries(input.RequestItems)[0]!;
  const reads = command === 'BatchGetItemCommand';
  const all = reads ? (requests as { Keys: unknown[] }).Keys : (requests as unknown[]);
  const sent = processed === 'half' ? all.slice(0, Math.ceil(all.length / 2)) : [];
  const left = all.slice(sent.length);
  const unprocessed = { [table]: reads ? { ...requests, Keys: left } : left };
  if (sent.length === 0) {
    const output = { $metadata: {}, ...(reads ? { Responses: { [table]: [] }, UnprocessedKeys: unprocessed } : { UnprocessedItems: unprocessed }) };
    return { output: output as unknown as Output, response: {} };
  }
  const result = await next({ ...args, input: { ...input, RequestItems: { [table]: reads ? { ...requests, Keys: sent } : sent } } });
  return { ...result, output: { ...result.output, ...(reads ? { UnprocessedKeys: unprocessed } : { UnprocessedItems: unprocessed }) } };
}
