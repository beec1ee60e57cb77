/**
 * Metering of DynamoDB round trips and capacity units, attached by the
 * benchmark to the handlers' own client (shared/platform/dynamodb/client.ts): deployed
 * handlers never carry it, so their requests carry no extra parameter.
 */
import { dynamo } from '#shared/platform/dynamodb/client.ts';

/** What DynamoDB calls cost since the meter was started or reset. */
export interface DynamoUsage {
  /** Calls to DynamoDB (an SDK retry of one call counts once). */
  roundTrips: number;
  /**
   * Sequential depth: the calls that had to wait for another. A call started
   * while another is in flight runs beside it and adds nothing; one started
   * when none is adds a step. In AWS the latency is about depth × one call.
   */
  depth: number;
  /** The operations in the order they started (`GetItem`, ...), for reading what a request spent. */
  operations: string[];
  readUnits: number;
  /** Every write unit, the global secondary indexes' included (what AWS bills). */
  writeUnits: number;
  /** Of `writeUnits`, those of the table's own items, without the index entries they carry. */
  tableWriteUnits: number;
}

export interface DynamoMeter {
  usage(): DynamoUsage;
  reset(): void;
}

type Units = { CapacityUnits?: number; ReadCapacityUnits?: number; WriteCapacityUnits?: number };
type Capacity = Units & { Table?: Units };

/** Operations DynamoDB bills in write units, also for the items they only check. */
const WRITE_OPERATIONS = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'BatchWriteItemCommand', 'TransactWriteItemsCommand']);

/**
 * Counts every call of this process's DynamoDB client and sums the capacity
 * it consumed, by asking each call for `ReturnConsumedCapacity: INDEXES`
 * (the total, and the table's share apart from its indexes').
 */
export function meterDynamoDb(): DynamoMeter {
  const empty = (): DynamoUsage => ({ roundTrips: 0, depth: 0, operations: [], readUnits: 0, writeUnits: 0, tableWriteUnits: 0 });
  let usage = empty();
  let inFlight = 0;
  dynamo.middlewareStack.add(
    (next, context) => async (args) => {
      (args.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity = 'INDEXES';
      usage.roundTrips++;
      usage.operations.push((context.commandName ?? '').replace(/Command$/, ''));
      if (inFlight === 0) usage.depth++;
      inFlight++;
      const result = await next(args).finally(() => {
        inFlight--;
      });
      const consumed = (result.output as { ConsumedCapacity?: Capacity | Capacity[] }).ConsumedCapacity;
      const writes = WRITE_OPERATIONS.has(context.commandName ?? '');
      // DynamoDB Local reports only totals; AWS splits reads from writes in transactions.
      const split = (units: Units) => ({
        read: units.ReadCapacityUnits ?? (writes ? 0 : (units.CapacityUnits ?? 0)),
        write: units.WriteCapacityUnits ?? (writes ? (units.CapacityUnits ?? 0) : 0),
      });
      for (const capacity of [consumed ?? []].flat()) {
        const { read, write } = split(capacity);
        usage.readUnits += read;
        usage.writeUnits += write;
        usage.tableWriteUnits += capacity.Table ? split(capacity.Table).write : write;
      }
      return result;
    },
    { step: 'initialize', priority: 'low', name: 'postlaneDynamoMeter' },
  );
  return {
    usage: () => ({ ...usage, operations: [...usage.operations] }),
    reset: () => {
      usage = empty();
    },
  };
}
