import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetAll, mapFound, type KeyedRead } from '#shared/platform/dynamodb/batches.ts';
import {
  db,
  queryAll,
  tableName,
  transactWrite,
  updateReturning,
  queryPages,
  putNew,
  getMapped,
  firstConditionFailed,
  TransactionCancelled,
  type TransactItems,
} from '#shared/platform/dynamodb/client.ts';
import { accountScoped } from '#shared/platform/dynamodb/partition.ts';
import { ConflictError, notFound } from '#shared/platform/errors.ts';
import { strings } from '#shared/platform/dynamodb/attributes.ts';

/** Where SES's verification of the domain stands: DNS not seen yet, verified, or given up on. */
export type DomainStatus = 'pending' | 'verified' | 'failed';

export interface DomainRecord {
  domainId: string;
  accountId: string;
  domain: string;
  verified: boolean;
  status: DomainStatus;
  /** SES's Easy DKIM tokens: each becomes a `<token>._domainkey.<domain>` CNAME. */
  dkimTokens: string[];
  /**
   * The account's own proof of ownership, published in a TXT record; absent on
   * domains recorded before proofs existed, which count as unverified until
   * their next check gives them one.
   */
  verificationToken?: string;
  createdAt: string;
  verifiedAt?: string;
  /**
   * The region whose SES identity the record holds (shared/domains/ses-identity-store.ts)
   * and, with it, a place in the account's domain count. Absent on domains
   * recorded before either was counted: they hold nothing and count for nothing.
   */
  identityRegion?: string;
}

/**
 * Domains an account may have: each is an SES identity in the deployment's
 * shared AWS account, whose regional quota (about 10,000) one account must
 * not be able to use up for every other.
 */
export const MAX_DOMAINS_PER_ACCOUNT = 50;

/** What the sending identity says about a domain at one moment. */
export type DomainState = Pick<DomainRecord, 'verified' | 'status' | 'dkimTokens'>;

/** The domain itself, keyed by name: the sender check reads it straight from the `from` address, in one read. */
const domainKey = (accountId: string, domain: string) => ({ pk: accountId, sk: `DOMAIN#${domain}` });
/** An immutable pointer from the id to the name, for the id-based API routes; newest last, as ids sort by time. */
const domainIdKey = (accountId: string, domainId: string) => ({ pk: accountScoped(accountId, 'DOMAIN'), sk: domainId });
/** The account's count of domains, an item of its own so that adding one never contends with the account's other counters. */
const domainCountKey = (accountId: string) => ({ pk: accountId, sk: 'DOMAIN_COUNT' });

function toDomain(item: Record<string, unknown>): DomainRecord {
  const token = typeof item.verificationToken === 'string' ? item.verificationToken : undefined;
  // Before proofs, SES's shared identity alone verified a domain for any account that added it: such a record proves nothing.
  const verified = item.verified === true && token !== undefined;
  // Domains recorded before the status existed (admin CLI) carry only `verified`.
  const status = (item.status as DomainStatus | undefined) ?? (verified ? 'verified' : 'pending');
  return {
    ...strings(item, 'domainId', 'accountId', 'domain', 'createdAt'),
    verified,
    status: status === 'verified' && !verified ? 'pending' : status,
    dkimTokens: (item.dkimTokens ?? []) as string[],
    ...(token === undefined ? {} : { verificationToken: token }),
    ...(verified && typeof item.verifiedAt === 'string' ? { verifiedAt: item.verifiedAt } : {}),
    ...(typeof item.identityRegion === 'string' ? { identityRegion: item.identityRegion } : {}),
  };
}

/** The domain by name, as a read `readTogether` can join to others (the send path reads it with the suppression list). */
export function domainRead(accountId: string, domain: string): KeyedRead<DomainRecord | undefined> {
  const key = domainKey(accountId, domain);
  return { keys: [key], result: (found) => mapFound(found(key), toDomain) };
}

export async function getDomain(accountId: string, domain: string): Promise<DomainRecord | undefined> {
  return getMapped(domainKey(accountId, domain), toDomain);
}

/** By id: the pointer, then the domain (two consistent reads). */
export async function getDomainById(accountId: string, domainId: string): Promise<DomainRecord | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: domainIdKey(accountId, domainId), ConsistentRead: true }));
  return Item ? getDomain(accountId, Item.domain as string) : undefined;
}

function domainCountChange(accountId: string, change: 1 | -1): TransactItems[number] {
  return {
    Update: {
      TableName: tableName,
      Key: domainCountKey(accountId),
      UpdateExpression: 'SET entity = :entity ADD #count :change',
      // Only an addition checks the limit: a removal must always be able to give its place back.
      ...(change === 1 ? { ConditionExpression: 'attribute_not_exists(#count) OR #count < :max' } : {}),
      ExpressionAttributeNames: { '#count': 'count' },
      ExpressionAttributeValues: { ':entity': 'domainCount', ':change': change, ...(change === 1 ? { ':max': MAX_DOMAINS_PER_ACCOUNT } : {}) },
    },
  };
}

/**
 * Stores a new domain, its id pointer, its place in the account's count and
 * the `alongside` items (its audit events) together: DOMAIN_EXISTS when the account already has that name,
 * DOMAIN_LIMIT_REACHED when it has MAX_DOMAINS_PER_ACCOUNT. The limit is the
 * count's condition in the same transaction, so racing additions cannot pass it.
 */
export async function insertDomain(record: DomainRecord, alongside: TransactItems = []): Promise<void> {
  try {
    await transactWrite([
      putNew({ ...domainKey(record.accountId, record.domain), entity: 'domain', ...record }),
      putNew({ ...domainIdKey(record.accountId, record.domainId), entity: 'domainId', domain: record.domain }),
      domainCountChange(record.accountId, 1),
      ...alongside,
    ]);
  } catch (error) {
    if (firstConditionFailed(error)) throw domainExists(record.domain);
    if (error instanceof TransactionCancelled && error.reasons[2] === 'ConditionalCheckFailed') throw domainLimitReached();
    throw error;
  }
}

/** How many domains the account has, as its count says (0 before its first). */
export async function countDomains(accountId: string): Promise<number> {
  return (await getMapped(domainCountKey(accountId), (item) => Number(item.count ?? 0))) ?? 0;
}

/**
 * Removes the domain, its id pointer and, when it counted, its place in the
 * account's count, together with the `alongside` items (its audit event); DOMAIN_NOT_FOUND when that record is gone already
 * (a racing delete).
 */
export async function removeDomain(record: DomainRecord, alongside: TransactItems = []): Promise<void> {
  try {
    await transactWrite([
      {
        Delete: {
          TableName: tableName,
          Key: domainKey(record.accountId, record.domain),
          ConditionExpression: 'domainId = :id',
          ExpressionAttributeValues: { ':id': record.domainId },
        },
      },
      { Delete: { TableName: tableName, Key: domainIdKey(record.accountId, record.domainId) } },
      ...(record.identityRegion === undefined ? [] : [domainCountChange(record.accountId, -1)]),
      ...alongside,
    ]);
  } catch (error) {
    if (firstConditionFailed(error)) throw notFound.domain();
    throw error;
  }
}

export const domainExists = (domain: string) =>
  new ConflictError('DOMAIN_EXISTS', `The domain ${domain} is already added to this account`, { field: 'domain' });

export const domainLimitReached = () =>
  new ConflictError('DOMAIN_LIMIT_REACHED', `An account has at most ${MAX_DOMAINS_PER_ACCOUNT} domains; delete one to add another`);

/**
 * Newest first: the domains from `offset` on, and how many there are. Reads
 * every id pointer (about 60 bytes each; an account has at most
 * MAX_DOMAINS_PER_ACCOUNT), then the page's domains in one batch.
 */
export async function listDomains(accountId: string, offset: number, limit: number): Promise<{ domains: DomainRecord[]; total: number }> {
  const pointers = await queryAll({
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': domainIdKey(accountId, '').pk },
    ScanIndexForward: false,
  });
  const names = pointers.slice(offset, offset + limit).map((pointer) => pointer.domain as string);
  const found = new Map((await batchGetAll(names.map((name) => domainKey(accountId, name)))).map((item) => [item.domain as string, toDomain(item)]));
  return { domains: names.flatMap((name) => found.get(name) ?? []), total: pointers.length };
}

/**
 * Records where an existing domain stands, checked with the proof `token`,
 * which becomes the domain's when it has none yet; `verifiedAt` is set when it
 * first verifies and removed when it stops. `whenVerified` (its
 * `domain.verified` event) is written with the change that makes it verified,
 * and only then. Undefined when the domain is not there.
 */
export async function saveDomainState(
  accountId: string,
  domain: string,
  state: DomainState,
  token: string,
  now: Date,
  whenVerified: TransactItems = [],
): Promise<DomainRecord | undefined> {
  const update = {
    Key: domainKey(accountId, domain),
    // A proof once given never changes: the account may have published it already.
    UpdateExpression:
      'SET verified = :verified, #status = :status, dkimTokens = :tokens, verificationToken = if_not_exists(verificationToken, :token)' +
      (state.verified ? ', verifiedAt = if_not_exists(verifiedAt, :now)' : ' REMOVE verifiedAt'),
    ConditionExpression: 'attribute_exists(pk)',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: {
      ':verified': state.verified,
      ':status': state.status,
      ':tokens': state.dkimTokens,
      ':token': token,
      ...(state.verified ? { ':now': now.toISOString() } : {}),
    },
  };
  if (state.verified && whenVerified.length > 0) {
    try {
      // Only the check that finds it verified first records the event: racing checks settle on the item's condition.
      await transactWrite([
        {
          Update: {
            TableName: tableName,
            ...update,
            ConditionExpression: 'attribute_exists(pk) AND (NOT verified = :true OR attribute_not_exists(verificationToken))',
            ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ':true': true },
          },
        },
        ...whenVerified,
      ]);
      return await getDomain(accountId, domain);
    } catch (error) {
      // Verified already (or gone): the plain write records the state, with no event.
      if (!firstConditionFailed(error)) throw error;
    }
  }
  const item = await updateReturning(update);
  return item && toDomain(item);
}

/** BatchGetItem's limit per call. */
const EARLIEST_PAGE = 100;

/**
 * The account's oldest domain that is verified, or undefined. Walks the id
 * pointers oldest first (ids sort by time), a page at a time, and stops at the
 * first page holding a verified domain: usually one Query and one BatchGetItem.
 */
export async function earliestVerifiedDomain(accountId: string): Promise<DomainRecord | undefined> {
  const pages = queryPages({
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': domainIdKey(accountId, '').pk },
    ConsistentRead: true,
    Limit: EARLIEST_PAGE,
  });
  for await (const pointers of pages) {
    const names = pointers.map((pointer) => pointer.domain as string);
    const found = new Map((await batchGetAll(names.map((name) => domainKey(accountId, name)))).map((item) => [item.domain as string, toDomain(item)]));
    const verified = names.map((name) => found.get(name)).find((domain) => domain?.verified);
    if (verified) return verified;
  }
  return undefined;
}
