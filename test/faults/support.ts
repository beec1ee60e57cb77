/**
 * DynamoDB faults that DynamoDB Local cannot produce on demand (throttling,
 * a cancelled transaction, a timeout, an answer lost after the write applied),
 * injected through middleware attached to the client (../support/dynamo-faults.ts); every other call is real.
 */
import { ProvisionedThroughputExceededException, ThrottlingException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { afterEach, beforeEach, vi } from 'vitest';
import { setFaultHook } from '../support/dynamo-faults.ts';

export const dynamoFaults = {
  throttled: () =>
    new ProvisionedThroughputExceededException({ message: 'The level of configured provisioned throughput for the table was exceeded.', $metadata: {} }),
  /** On-demand tables and control-plane limits throttle with this one. */
  throttling: () => new ThrottlingException({ message: 'Rate of requests exceeds the allowed throughput.', $metadata: {} }),
  /** Cancelled for a reason other than a conflict or a condition: nothing is written, nothing to retry. */
  cancelled: () =>
    new TransactionCanceledException({
      message: 'Transaction cancelled, please refer cancellation reasons for specific reasons [ThrottlingError]',
      $metadata: {},
      CancellationReasons: [{ Code: 'ThrottlingError' }],
    }),
  /** Lost to another transaction on the same items: the client retries these itself. */
  conflict: () =>
    new TransactionCanceledException({
      message: 'Transaction cancelled, please refer cancellation reasons for specific reasons [TransactionConflict]',
      $metadata: {},
      CancellationReasons: [{ Code: 'TransactionConflict' }],
    }),
  timeout: () => Object.assign(new Error('Socket timed out without establishing a connection within 1000 ms'), { name: 'TimeoutError' }),
};

/**
 * Every error above, or a BatchGetItem / BatchWriteItem answered in part as
 * DynamoDB does under throttling: `partial` processes the first half of the
 * requests (a single one whole), `unprocessed` none; the rest comes back unprocessed.
 */
export type DynamoFault = keyof typeof dynamoFaults | 'partial' | 'unprocessed';

export interface FaultRule {
  /** The low-level command: `TransactWriteItemsCommand`, `UpdateItemCommand`, `PutItemCommand`, `BatchWriteItemCommand`. */
  command: string;
  /** Only calls whose input contains this text count (an account id, a key part such as `#USAGE`). */
  touching?: string;
  /** Which matching call fails, from 1. */
  nth?: number;
  /** How many matching calls fail from the nth on (default 1); `Infinity`: DynamoDB keeps refusing. */
  times?: number;
  fault: DynamoFault;
  /** DynamoDB applies the call and the answer is lost on the way back. */
  after?: boolean;
}

/** Fails one matching DynamoDB call; returns how many calls matched so far. */
export function injectDynamoFault(rule: FaultRule): { matched: () => number } {
  let matched = 0;
  setFaultHook((command, input) => {
    if (command !== rule.command) return undefined;
    if (rule.touching !== undefined && !JSON.stringify(input).includes(rule.touching)) return undefined;
    matched++;
    const first = rule.nth ?? 1;
    if (matched < first || matched >= first + (rule.times ?? 1)) return undefined;
    if (rule.fault === 'partial') return { unprocessed: 'half' };
    if (rule.fault === 'unprocessed') return { unprocessed: 'none' };
    return { error: dynamoFaults[rule.fault](), after: rule.after ?? false };
  });
  return { matched: () => matched };
}

beforeEach(() => {
  // Each injected fault is logged in full as an unhandled error: expected here, noise in the output.
  vi.spyOn(console, 'error').mockImplementation(() => {});
});

afterEach(() => {
  setFaultHook(undefined);
  vi.restoreAllMocks();
});

export const INTERNAL_ERROR = { success: false, error: 'INTERNAL_ERROR', message: 'An unexpected error occurred; retry the request' };
