import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '#shared/platform/dynamodb/client.ts';

/**
 * The local stack's link-signing key: one item outside every account (no
 * account's key starts with `SYSTEM`). Deployed stacks read the key from
 * Secrets Manager instead and never touch this item.
 */
const localSecretKey = { pk: 'SYSTEM', sk: 'SIGNING_SECRET' } as const;

/**
 * Stores `candidate` unless a key is already stored, and returns the stored
 * one: `if_not_exists` makes the first writer win, so every process (the
 * server, the admin CLI, each test worker) signs with the same key.
 */
export async function storeLocalSigningSecret(candidate: string): Promise<string> {
  const { Attributes } = await db.send(
    new UpdateCommand({
      TableName: tableName,
      Key: localSecretKey,
      UpdateExpression: 'SET entity = :entity, secret = if_not_exists(secret, :candidate)',
      ExpressionAttributeValues: { ':entity': 'signingSecret', ':candidate': candidate },
      ReturnValues: 'ALL_NEW',
    }),
  );
  return Attributes!.secret as string;
}
