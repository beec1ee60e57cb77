/**
 * Global-table replication between the two tables that stand for the two
 * regions' replicas in one DynamoDB Local, as DynamoDB does it: after a write
 * commits in one replica, the item's new image (or its deletion) reaches the
 * other asynchronously, item by item, and a conflict is settled by last
 * writer wins on the time of the write.
 *
 * How: a middleware on each replica's client takes the written items in
 * turn (a replica applies one item's writes one at a time), stamps the write
 * with the time, reads the items back once it committed, and after a random
 * delay copies each image to the other table unless that table took a later
 * write of the item meanwhile.
 * Fidelity limits: one process applies the writes of an item one at a time
 * where DynamoDB would let a transaction lose with TransactionConflict; both
 * "regions" share one clock, so there is no skew; a transaction replicates
 * item by item, as in AWS; GSIs follow their table's items, as they do in AWS.
 * Items only: no TTL, no streams.
 */
import { DeleteItemCommand, DynamoDBClient, GetItemCommand, PutItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { replicaFor } from '#shared/platform/dynamodb/client.ts';

/** The written keys of a request, marshalled or not: `[{pk, sk}]`. */
function writtenKeys(operation: string, input: Record<string, any>): { pk: string; sk: string }[] {
  const plain = (value: unknown) => (typeof value === 'object' && value !== null ? (value as { S: string }).S : (value as string));
  const key = (item: Record<string, unknown> | undefined) => (item ? [{ pk: plain(item.pk), sk: plain(item.sk) }] : []);
  switch (operation) {
    case 'PutItem':
      return key(input.Item);
    case 'UpdateItem':
    case 'DeleteItem':
      return key(input.Key);
    case 'TransactWriteItems':
      return (input.TransactItems as Record<string, any>[]).flatMap((item) => key(item.Put?.Item ?? item.Update?.Key ?? item.Delete?.Key));
    case 'BatchWriteItem':
      return (Object.values(input.RequestItems ?? {}) as any[][]).flat().flatMap((request) => key(request.PutRequest?.Item ?? request.DeleteRequest?.Key));
    default:
      return [];
  }
}

export interface Replication {
  /** Resolves once every write made so far has reached the other replica (or lost to a later one there). */
  settled(): Promise<void>;
  /** Stops copying (as when the link between regions is down) until `resume`; writes still queue up. */
  hold(): void;
  resume(): void;
  stop(): void;
}

/**
 * Replicates writes between `tables` (region → table name) with delays of
 * `minDelayMs` to `maxDelayMs`.
 */
export function replicate(endpoint: string, tables: Record<string, string>, options: { minDelayMs: number; maxDelayMs: number }): Replication {
  const raw = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  /** Time of the last write each replica applied to each item (`region pk sk`). */
  const lastWrite = new Map<string, number>();
  const pending = new Set<Promise<void>>();
  let clock = 0;
  let released: Promise<void> = Promise.resolve();
  let release = () => {};
  /** Write times, strictly increasing so that last writer wins has one answer. */
  const now = () => (clock = Math.max(clock + 1, Date.now()));
  const itemId = (region: string, key: { pk: string; sk: string }) => `${region}\u0000${key.pk}\u0000${key.sk}`;

  /**
   * A replica applies the writes of one item one at a time, its own and
   * replicated ones alike; without this, a copy could land after a local
   * write it was judged older than. All ids are queued on at once, so two
   * writers never wait for each other.
   */
  const tails = new Map<string, Promise<void>>();
  async function lock(ids: readonly string[]): Promise<() => void> {
    let unlock = () => {};
    const mine = new Promise<void>((resolve) => {
      unlock = resolve;
    });
    const unique = [...new Set(ids)];
    const before = unique.map((id) => tails.get(id));
    for (const id of unique) tails.set(id, mine);
    await Promise.all(before);
    return () => {
      unlock();
      for (const id of unique) if (tails.get(id) === mine) tails.delete(id);
    };
  }

  async function copy(
    _from: string,
    to: string,
    key: { pk: string; sk: string },
    image: Record<string, AttributeValue> | undefined,
    writtenAt: number,
  ): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, options.minDelayMs + Math.random() * (options.maxDelayMs - options.minDelayMs)));
    await released;
    const id = itemId(to, key);
    const unlock = await lock([id]);
    try {
      if ((lastWrite.get(id) ?? -1) > writtenAt) return; // the other replica wrote it later: that write wins
      lastWrite.set(id, writtenAt);
      if (image) await raw.send(new PutItemCommand({ TableName: tables[to], Item: image }));
      else await raw.send(new DeleteItemCommand({ TableName: tables[to], Key: { pk: { S: key.pk }, sk: { S: key.sk } } }));
    } finally {
      unlock();
    }
  }

  const removers: (() => void)[] = [];
  for (const region of Object.keys(tables)) {
    const { client } = replicaFor(region);
    const name = `replicateFrom-${region}`;
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const operation = (context.commandName ?? '').replace(/Command$/, '');
        const keys = writtenKeys(operation, args.input as Record<string, any>);
        if (keys.length === 0) return next(args);
        const ids = keys.map((key) => itemId(region, key));
        const unlock = await lock(ids);
        const writtenAt = now();
        const images: Promise<Record<string, AttributeValue> | undefined>[] = [];
        try {
          const result = await next(args);
          for (const id of ids) lastWrite.set(id, writtenAt);
          // Read while the items are still locked: the images are this write's.
          images.push(
            ...keys.map(
              async (key) =>
                (await raw.send(new GetItemCommand({ TableName: tables[region], Key: { pk: { S: key.pk }, sk: { S: key.sk } }, ConsistentRead: true }))).Item,
            ),
          );
          await Promise.all(images);
          return result;
        } finally {
          unlock();
          keys.forEach((key, index) => {
            if (!images[index]) return; // the write failed: nothing to replicate
            const done = images[index]!.then((image) =>
              Promise.all(
                Object.keys(tables)
                  .filter((other) => other !== region)
                  .map((other) => copy(region, other, key, image, writtenAt)),
              ),
            ).then(() => undefined);
            pending.add(done);
            void done.finally(() => pending.delete(done));
          });
        }
      },
      { step: 'initialize', priority: 'low', name },
    );
    removers.push(() => client.middlewareStack.remove(name));
  }

  return {
    async settled() {
      while (pending.size > 0) await Promise.all([...pending]);
    },
    hold() {
      released = new Promise((resolve) => {
        release = resolve;
      });
    },
    resume() {
      release();
    },
    stop() {
      for (const remove of removers) remove();
      raw.destroy();
    },
  };
}
