/**
 * Metering of DynamoDB round trips and capacity units, attached by the
 * benchmark to the handlers' own client (shared/data/client.ts): deployed
 * handlers never carry it, so their requests carry no extra parameter.
 */
import { dynamo } from '#shared/data/client.ts';

/** What DynamoDB calls cost since the meter was started or reset. */
export interface DynamoUsage {
  /** Calls to DynamoDB (an SDK retry of one call counts once). */
  roundTrips: number;
  readUnits: number;
  writeUnits: number;
}

export interface DynamoMeter {
  usage(): DynamoUsage;
  reset(): void;
}

type Capacity = { CapacityUnits?: number; ReadCapacityUnits?: number; WriteCapacityUnits?: number };

/** Operations DynamoDB bills in write units, also for the items they only check. */
const WRITE_OPERATIONS = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'BatchWriteItemCommand', 'TransactWriteItemsCommand']);

/**
 * Counts every call of this process's DynamoDB client and sums the capacity
 * it consumed, by asking each call for `ReturnConsumedCapacity: TOTAL`.
 */
export function meterDynamoDb(): DynamoMeter {
  let usage: DynamoUsage = { roundTrips: 0, readUnits: 0, writeUnits: 0 };
  dynamo.middlewareStack.add(
    (next, context) => async (args) => {
      (args.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity = 'TOTAL';
      usage.roundTrips++;
      const result = await next(args);
      const consumed = (result.output as { ConsumedCapacity?: Capacity | Capacity[] }).ConsumedCapacity;
      const writes = WRITE_OPERATIONS.has(context.commandName ?? '');
      for (const capacity of [consumed ?? []].flat()) {
        // DynamoDB Local reports only the total; AWS splits reads from writes in transactions.
        const read = capacity.ReadCapacityUnits ?? (writes ? 0 : (capacity.CapacityUnits ?? 0));
        const write = capacity.WriteCapacityUnits ?? (writes ? (capacity.CapacityUnits ?? 0) : 0);
        usage.readUnits += read;
        usage.writeUnits += write;
      }
      return result;
    },
    { step: 'initialize', priority: 'low', name: 'postlaneDynamoMeter' },
  );
  return {
    usage: () => ({ ...usage }),
    reset: () => {
      usage = { roundTrips: 0, readUnits: 0, writeUnits: 0 };
    },
  };
}
