/**
 * What Lambda's DynamoDB Streams event source mapping does, for `npm start`
 * and the tests: read the table's stream (DynamoDB Local keeps one, created
 * with the table from shared/platform/dynamodb/table.ts), keep the records the mapping's
 * filter keeps (shared/events/stream-records.ts), and invoke the fan-out
 * function with the stream event shape. With ReportBatchItemFailures, the
 * batch is handed again from the first record listed, as Lambda does.
 */
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  type GetRecordsCommandOutput,
  GetShardIteratorCommand,
  type _Record,
  type AttributeValue,
  type ShardIteratorType,
} from '@aws-sdk/client-dynamodb-streams';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { EVENT_STREAM_FILTER, matchesFilter } from '#shared/events/stream-records.ts';
import { log } from '#shared/platform/log.ts';
import { localDynamoClient } from './dynamodb.ts';
import { lambdaContext } from './http-event.ts';
import { invokedAs } from './invocation.ts';

export type StreamHandler = (event: DynamoDBStreamEvent, context: Context) => Promise<DynamoDBBatchResponse | undefined>;

interface ShardPosition {
  /** Undefined once the shard is closed and read to its end. */
  iterator: string | undefined;
  /** The last record read, to resume after when an iterator expires. */
  lastSequence?: string;
}

/**
 * The SDK's stream client answers an empty map attribute as `{}`, with no
 * `M`, which `unmarshall` refuses ("No value defined"); Lambda's event has
 * `{"M": {}}`. No other attribute value comes back empty.
 */
function withEmptyMaps(value: AttributeValue): AttributeValue {
  if (value.M) return { M: imageWithEmptyMaps(value.M) };
  if (value.L) return { L: value.L.map(withEmptyMaps) };
  return Object.keys(value).length === 0 ? { M: {} } : value;
}

function imageWithEmptyMaps(image: Record<string, AttributeValue>): Record<string, AttributeValue> {
  return Object.fromEntries(Object.entries(image).map(([name, value]) => [name, withEmptyMaps(value)]));
}

/** Lambda's record shape: the SDK answers the creation time as a Date, Lambda as epoch seconds. */
function lambdaRecord(record: _Record, streamArn: string, region: string): DynamoDBRecord {
  const { ApproximateCreationDateTime, NewImage, OldImage, ...rest } = record.dynamodb ?? {};
  return {
    ...(record.eventID ? { eventID: record.eventID } : {}),
    ...(record.eventName ? { eventName: record.eventName } : {}),
    eventVersion: record.eventVersion ?? '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: region,
    eventSourceARN: streamArn,
    dynamodb: {
      ...(rest as NonNullable<DynamoDBRecord['dynamodb']>),
      ...(NewImage ? { NewImage: imageWithEmptyMaps(NewImage) as NonNullable<DynamoDBRecord['dynamodb']>['NewImage'] } : {}),
      ...(OldImage ? { OldImage: imageWithEmptyMaps(OldImage) as NonNullable<DynamoDBRecord['dynamodb']>['OldImage'] } : {}),
      ...(ApproximateCreationDateTime ? { ApproximateCreationDateTime: Math.floor(ApproximateCreationDateTime.getTime() / 1000) } : {}),
    },
  };
}

/**
 * The table stream's records from the moment it is opened on, in order
 * within each shard, each read once. A shard that appears later (DynamoDB
 * rolls shards over) is read from its start.
 */
export class StreamReader {
  private readonly shards = new Map<string, ShardPosition>();

  private constructor(
    private readonly client: DynamoDBStreamsClient,
    readonly streamArn: string,
    private readonly region: string,
  ) {}

  /** Opens the stream of `tableName` at its latest records: what was written before is not read. */
  static async open(endpoint: string, tableName: string, region: string): Promise<StreamReader> {
    const dynamo = localDynamoClient(endpoint);
    let streamArn: string | undefined;
    try {
      streamArn = (await dynamo.send(new DescribeTableCommand({ TableName: tableName }))).Table?.LatestStreamArn;
    } finally {
      dynamo.destroy();
    }
    if (!streamArn) throw new Error(`Table ${tableName} has no stream: create it with createTableInput (shared/platform/dynamodb/table.ts)`);
    const client = new DynamoDBStreamsClient({
      endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      maxAttempts: 1,
    });
    const reader = new StreamReader(client, streamArn, region);
    await reader.discoverShards('LATEST');
    return reader;
  }

  private async iterator(shardId: string, type: ShardIteratorType, sequence?: string): Promise<string | undefined> {
    const { ShardIterator } = await this.client.send(
      new GetShardIteratorCommand({ StreamArn: this.streamArn, ShardId: shardId, ShardIteratorType: type, ...(sequence ? { SequenceNumber: sequence } : {}) }),
    );
    return ShardIterator;
  }

  private async discoverShards(type: ShardIteratorType): Promise<void> {
    let after: string | undefined;
    do {
      const { StreamDescription } = await this.client.send(
        new DescribeStreamCommand({ StreamArn: this.streamArn, ...(after ? { ExclusiveStartShardId: after } : {}) }),
      );
      for (const shard of StreamDescription?.Shards ?? []) {
        if (!shard.ShardId || this.shards.has(shard.ShardId)) continue;
        this.shards.set(shard.ShardId, { iterator: await this.iterator(shard.ShardId, type) });
      }
      after = StreamDescription?.LastEvaluatedShardId;
    } while (after);
  }

  private async readShard(position: ShardPosition, shardId: string): Promise<DynamoDBRecord[]> {
    const records: DynamoDBRecord[] = [];
    while (position.iterator) {
      let answer: GetRecordsCommandOutput;
      try {
        answer = await this.client.send(new GetRecordsCommand({ ShardIterator: position.iterator }));
      } catch (error) {
        // An iterator older than 15 minutes, or (DynamoDB Local) a LATEST one taken on a shard with no record yet.
        if (!['ExpiredIteratorException', 'TrimmedDataAccessException'].includes((error as Error).name)) throw error;
        position.iterator = await this.iterator(shardId, position.lastSequence ? 'AFTER_SEQUENCE_NUMBER' : 'TRIM_HORIZON', position.lastSequence);
        continue;
      }
      const page = answer.Records ?? [];
      position.iterator = answer.NextShardIterator;
      for (const record of page) {
        position.lastSequence = record.dynamodb?.SequenceNumber ?? position.lastSequence;
        records.push(lambdaRecord(record, this.streamArn, this.region));
      }
      if (page.length === 0) break;
    }
    return records;
  }

  /** The records written since the last read that the event source's filter lets through. */
  async read(): Promise<DynamoDBRecord[]> {
    await this.discoverShards('TRIM_HORIZON');
    const records: DynamoDBRecord[] = [];
    for (const [shardId, position] of this.shards) records.push(...(await this.readShard(position, shardId)));
    return records.filter((record) => matchesFilter(EVENT_STREAM_FILTER, record));
  }

  close(): void {
    this.client.destroy();
  }
}

export function streamEvent(records: DynamoDBRecord[]): DynamoDBStreamEvent {
  return { Records: records };
}

/** The records to hand again: from the first one the handler listed on, or all when it listed one it was not given. */
export function recordsToRetry(records: readonly DynamoDBRecord[], response: DynamoDBBatchResponse | undefined): DynamoDBRecord[] {
  const listed = new Set((response?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier));
  if (listed.size === 0) return [];
  const first = records.findIndex((record) => listed.has(record.dynamodb?.SequenceNumber ?? ''));
  return first === -1 ? [...records] : records.slice(first);
}

/** Invokes `handler` as the function `name` with a batch; answers the records to hand again. */
export async function invokeWithRecords(name: string, handler: StreamHandler, records: DynamoDBRecord[]): Promise<DynamoDBRecord[]> {
  try {
    return recordsToRetry(records, await invokedAs(name, handler)(streamEvent(records), lambdaContext(name)));
  } catch (error) {
    log.error('local stream poller: handler failed', { handler: name, error });
    return records;
  }
}

export interface StreamPoller {
  stop(): Promise<void>;
}

export interface StreamPollerOptions {
  reader: StreamReader;
  /** Module under functions/, for the Lambda context's names. */
  name: string;
  handler: StreamHandler;
  /** Records per invocation (the event source's BatchSize). */
  batchSize: number;
  /** Pause between reads that found nothing, and after a failed batch. */
  intervalMs?: number;
}

/** Polls until stopped; a failed read (DynamoDB Local restarting) is logged and tried again after the pause. */
export function startStreamPoller(options: StreamPollerOptions): StreamPoller {
  const interval = options.intervalMs ?? 200;
  let stopped = false;
  let retry: DynamoDBRecord[] = [];
  const pause = () => new Promise((resolve) => setTimeout(resolve, interval));
  const loop = (async () => {
    while (!stopped) {
      let records: DynamoDBRecord[];
      try {
        records = [...retry, ...(await options.reader.read())];
      } catch (error) {
        if (stopped) break;
        log.error('local stream poller: read failed', { streamArn: options.reader.streamArn, error });
        await pause();
        continue;
      }
      retry = [];
      for (let start = 0; start < records.length && retry.length === 0; start += options.batchSize) {
        const kept = await invokeWithRecords(options.name, options.handler, records.slice(start, start + options.batchSize));
        // As the stream's order requires: nothing after a failed record goes ahead of it.
        if (kept.length > 0) retry = [...kept, ...records.slice(start + options.batchSize)];
      }
      if (records.length === 0 || retry.length > 0) await pause();
    }
    options.reader.close();
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
    },
  };
}
