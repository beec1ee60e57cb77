import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.ts';
import { newId } from '#shared/ids.ts';

export interface DomainRecord {
  domainId: string;
  accountId: string;
  domain: string;
  verified: boolean;
  createdAt: string;
  verifiedAt?: string;
}

/** Keyed by the domain name: the sender check reads it straight from the `from` address. */
const domainKey = (accountId: string, domain: string) => ({ pk: accountId, sk: `DOMAIN#${domain}` });

function toDomain(item: Record<string, unknown>): DomainRecord {
  return {
    domainId: item.domainId as string,
    accountId: item.accountId as string,
    domain: item.domain as string,
    verified: item.verified === true,
    createdAt: item.createdAt as string,
    ...(typeof item.verifiedAt === 'string' ? { verifiedAt: item.verifiedAt } : {}),
  };
}

export async function getDomain(accountId: string, domain: string): Promise<DomainRecord | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: domainKey(accountId, domain) }));
  return Item ? toDomain(Item) : undefined;
}

/** Creates the domain when new and records its verification state; the id is kept once given. */
export async function saveDomainStatus(accountId: string, domain: string, verified: boolean, now: Date): Promise<DomainRecord> {
  const { Attributes } = await db.send(new UpdateCommand({
    TableName: tableName,
    Key: domainKey(accountId, domain),
    UpdateExpression: 'SET entity = :entity, domainId = if_not_exists(domainId, :id), accountId = :accountId, #domain = :domain, '
      + 'verified = :verified, createdAt = if_not_exists(createdAt, :now)'
      + (verified ? ', verifiedAt = if_not_exists(verifiedAt, :now)' : ' REMOVE verifiedAt'),
    ExpressionAttributeNames: { '#domain': 'domain' },
    ExpressionAttributeValues: {
      ':entity': 'domain',
      ':id': newId('dom', now.getTime()),
      ':accountId': accountId,
      ':domain': domain,
      ':verified': verified,
      ':now': now.toISOString(),
    },
    ReturnValues: 'ALL_NEW',
  }));
  return toDomain(Attributes!);
}
