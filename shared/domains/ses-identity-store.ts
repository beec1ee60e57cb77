/**
 * Who relies on each SES identity Postlane manages. An identity belongs to the
 * deployment's AWS account and one region, never to a Postlane account: every
 * account that adds a name shares that region's identity. So one item per
 * name and region, `SYSTEM#SES_IDENTITY#<domain>` / `<region>`, counts the
 * domain records, of any account, that hold it. It is written only in that
 * region's replica, whichever region handles the request, so its conditions
 * hold across regions (docs/regions.md: one writing region per item).
 *
 * - `holders`: domain records holding the identity, taken before SES is asked
 *   to create it and handed back when the record is deleted (or was never written);
 * - `owned`: SES created the identity for one of those holders: an identity
 *   that already existed (made by the operator, or by accounts from before
 *   holds were counted) is never Postlane's to delete;
 * - `deleting`: epoch ms at which the last holder claimed the deletion; no hold
 *   is taken meanwhile, so no account adopts an identity on its way out.
 */
import { DeleteCommand, GetCommand, UpdateCommand, type DeleteCommandInput, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure, replicaFor, tableName } from '#shared/platform/dynamodb/client.ts';

const identityKey = (domain: string, region: string) => ({ pk: `SYSTEM#SES_IDENTITY#${domain}`, sk: region });

/**
 * A deletion claimed longer ago than any function runs (28 s) was abandoned by
 * a crash between the claim and SES's answer: the next hold takes over.
 */
const ABANDONED_DELETION_MS = 5 * 60_000;

/** The write, in `region`'s replica whichever region runs it: its returned item, or undefined when its condition refused it. */
async function writeIn(region: string, command: UpdateCommand | DeleteCommand): Promise<Record<string, unknown> | undefined> {
  try {
    return (await replicaFor(region).documents.send(command as UpdateCommand)).Attributes ?? {};
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

const update = (region: string, input: Omit<UpdateCommandInput, 'TableName'>) => writeIn(region, new UpdateCommand({ ...input, TableName: tableName }));
const remove = (region: string, input: Omit<DeleteCommandInput, 'TableName'>) => writeIn(region, new DeleteCommand({ ...input, TableName: tableName }));

/**
 * Takes a hold on the identity of `domain` in `region`; false while its
 * deletion is under way (the caller waits and asks again).
 */
export async function takeIdentityHold(domain: string, region: string, now: number): Promise<boolean> {
  const written = await update(region, {
    Key: identityKey(domain, region),
    UpdateExpression: 'SET entity = :entity ADD holders :one REMOVE deleting',
    ConditionExpression: 'attribute_not_exists(deleting) OR deleting < :abandoned',
    ExpressionAttributeValues: { ':entity': 'sesIdentity', ':one': 1, ':abandoned': now - ABANDONED_DELETION_MS },
  });
  return written !== undefined;
}

/** SES created the identity for a holder: from now on it is Postlane's to delete once nobody holds it. */
export async function markIdentityCreated(domain: string, region: string): Promise<void> {
  await update(region, {
    Key: identityKey(domain, region),
    UpdateExpression: 'SET owned = :true',
    ConditionExpression: 'attribute_exists(pk)',
    ExpressionAttributeValues: { ':true': true },
  });
}

/**
 * Hands a hold back. When it was the last one of an identity Postlane created,
 * and `mayDelete` (the caller can reach that region's SES), claims the
 * deletion and returns the claim, which the caller passes to
 * `endIdentityDeletion` once SES has deleted the identity. The last hold of an
 * identity Postlane did not create removes the item: SES keeps the identity.
 */
export async function releaseIdentityHold(domain: string, region: string, now: number, mayDelete: boolean): Promise<number | undefined> {
  const key = identityKey(domain, region);
  const left = await update(region, {
    Key: key,
    UpdateExpression: 'ADD holders :minusOne',
    ConditionExpression: 'holders > :zero',
    ExpressionAttributeValues: { ':minusOne': -1, ':zero': 0 },
    ReturnValues: 'ALL_NEW',
  });
  if (!left || Number(left.holders) > 0) return undefined;
  // A hold taken after the count reached zero fails these conditions: that holder keeps the identity.
  if (left.owned !== true) {
    await remove(region, { Key: key, ConditionExpression: 'holders = :zero AND attribute_not_exists(deleting)', ExpressionAttributeValues: { ':zero': 0 } });
    return undefined;
  }
  if (!mayDelete) return undefined;
  const claimed = await update(region, {
    Key: key,
    UpdateExpression: 'SET deleting = :now',
    ConditionExpression: 'holders = :zero AND attribute_not_exists(deleting)',
    ExpressionAttributeValues: { ':zero': 0, ':now': now },
  });
  return claimed ? now : undefined;
}

/** SES deleted the identity: the item goes, so the next hold finds none and SES creates the identity anew. */
export async function endIdentityDeletion(domain: string, region: string, claim: number): Promise<void> {
  await remove(region, {
    Key: identityKey(domain, region),
    ConditionExpression: 'deleting = :claim AND holders = :zero',
    ExpressionAttributeValues: { ':claim': claim, ':zero': 0 },
  });
}

/** SES did not delete the identity: holds may be taken again at once, and the identity waits for the next last holder. */
export async function abandonIdentityDeletion(domain: string, region: string, claim: number): Promise<void> {
  await update(region, {
    Key: identityKey(domain, region),
    UpdateExpression: 'REMOVE deleting',
    ConditionExpression: 'deleting = :claim',
    ExpressionAttributeValues: { ':claim': claim },
  });
}

/** The holds counted on the identity in `region` and whether Postlane created it (the tests read it). */
export async function identityHolds(domain: string, region: string): Promise<{ holders: number; owned: boolean } | undefined> {
  const { Item } = await replicaFor(region).documents.send(new GetCommand({ TableName: tableName, Key: identityKey(domain, region), ConsistentRead: true }));
  return Item ? { holders: Number(Item.holders ?? 0), owned: Item.owned === true } : undefined;
}
