/**
 * Watches this process's DynamoDB client (the local server's handlers run in
 * the test worker) for writes DynamoDB accepted, so a test can show that a
 * rejected request stored nothing. A write DynamoDB refused (a failed
 * condition, a cancelled transaction) stored nothing and is not recorded.
 */
import { dynamo } from '#shared/platform/dynamodb/client.ts';

export interface StoredKey {
  command: string;
  pk: string;
  sk: string;
}

type AttributeMap = Record<string, unknown> | undefined;

/** A key attribute as the document client gives it (`'acc_1'`) or as the low-level client does (`{S: 'acc_1'}`). */
function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && 'S' in value) return String((value as { S: unknown }).S);
  return String(value);
}

function keyOf(command: string, item: AttributeMap): StoredKey {
  return { command, pk: text(item?.pk), sk: text(item?.sk) };
}

/** The items a write command changes, by key; condition checks change nothing. */
function writtenKeys(command: string, input: Record<string, any>): StoredKey[] {
  switch (command) {
    case 'PutItemCommand':
      return [keyOf(command, input.Item)];
    case 'UpdateItemCommand':
    case 'DeleteItemCommand':
      return [keyOf(command, input.Key)];
    case 'BatchWriteItemCommand':
      return Object.values(input.RequestItems ?? {})
        .flat()
        .map((request: any) => keyOf(command, request.PutRequest?.Item ?? request.DeleteRequest?.Key));
    case 'TransactWriteItemsCommand':
      return (input.TransactItems ?? []).flatMap((entry: any) => {
        const written = entry.Put?.Item ?? entry.Update?.Key ?? entry.Delete?.Key;
        return written ? [keyOf(command, written)] : [];
      });
    default:
      return [];
  }
}

/**
 * What every keyed request writes whatever its outcome: its rate window and,
 * once a minute, the key's `lastUsedAt`, or its session's last use; a try of
 * a sign-in code, counted right or wrong (that is the limit on guessing); and
 * the local link-signing key, made on first use. Everything else a rejected
 * request writes is a defect.
 */
export function isBookkeeping(key: StoredKey): boolean {
  return key.pk.includes('#RATE#') || key.sk.startsWith('KEY#') || key.pk === 'SYSTEM' || key.pk.startsWith('SESSION#') || key.pk.startsWith('SIGNIN#');
}

export interface WriteRecorder {
  /** Keys written since the last call, emptying the record. */
  take(): StoredKey[];
  stop(): void;
}

const NAME = 'fuzzWriteRecorder';

export function recordWrites(): WriteRecorder {
  let written: StoredKey[] = [];
  dynamo.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      written.push(...writtenKeys(context.commandName ?? '', args.input as Record<string, any>));
      return result;
    },
    { step: 'initialize', priority: 'low', name: NAME },
  );
  return {
    take: () => {
      const taken = written;
      written = [];
      return taken;
    },
    stop: () => {
      dynamo.middlewareStack.remove(NAME);
    },
  };
}
