import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { batchWriteAll } from './batches.ts';
import { db, deleteIf, isConditionFailure, tableName, transactWrite, TransactionCancelled, updateIf } from './client.ts';
import { accountScoped } from './partition.ts';
import { releaseEmailsItem } from './usage.ts';

export type EmailType = 'email' | 'otp' | 'transactional' | 'broadcast';

/**
 * sent: SES accepted it (or a test key pretended to); failed: SES refused it;
 * suppressed: the recipient's contact status kept it back; queued: SES throttled
 * it and it waits on the retry queue (the worker moves it to sent or failed);
 * sending: a broadcast worker claimed it and is handing it to SES.
 * delivered, bounced, complained, rejected: what SES later reported (feedback events).
 */
export type EmailStatus = 'sent' | 'failed' | 'queued' | 'sending' | 'suppressed' | 'delivered' | 'bounced' | 'complained' | 'rejected';

export interface EmailRecord {
  emailId: string;
  trackingId: string;
  type: EmailType;
  /** As the header carried it: `Acme <news@acme.com>`. */
  from: string;
  to: string;
  cc: string[];
  bcc: string[];
  replyTo?: string;
  subject: string;
  status: EmailStatus;
  error?: { code: string; message: string };
  sesMessageId?: string;
  /** Made with a test key: validated and recorded, never handed to SES. */
  test: boolean;
  /** The broadcast this message is one of. */
  broadcastId?: string;
  createdAt: string;
}

/**
 * One partition per email: records are only ever read by id, and a send of
 * many messages spreads its writes instead of heating one partition.
 */
const emailKey = (accountId: string, emailId: string) => ({ pk: accountScoped(accountId, 'EML', emailId), sk: 'EMAIL' });
/**
 * gsi1 of a record SES accepted: its SES message id, the one thing SES's
 * account-level suppression list remembers of the message that put an
 * address there (GetSuppressedDestination). Not account-scoped: SES ids are
 * the deployment's, and only the feedback reconciliation reads this index.
 */
const sesMessageIndexKey = (sesMessageId: string) => ({ gsi1pk: `SESMSG#${sesMessageId}`, gsi1sk: 'EMAIL' });

function toRecord(item: Record<string, unknown>): EmailRecord {
  return {
    emailId: item.emailId as string,
    trackingId: item.trackingId as string,
    type: item.type as EmailType,
    from: item.from as string,
    to: item.to as string,
    cc: (item.cc ?? []) as string[],
    bcc: (item.bcc ?? []) as string[],
    ...(typeof item.replyTo === 'string' ? { replyTo: item.replyTo } : {}),
    subject: item.subject as string,
    status: item.status as EmailStatus,
    ...(item.error ? { error: item.error as { code: string; message: string } } : {}),
    ...(typeof item.sesMessageId === 'string' ? { sesMessageId: item.sesMessageId } : {}),
    test: item.test === true,
    ...(typeof item.broadcastId === 'string' ? { broadcastId: item.broadcastId } : {}),
    createdAt: item.createdAt as string,
  };
}

/** Stores records, 25 per BatchWriteItem, retrying what DynamoDB leaves unprocessed under load. */
export async function putEmailRecords(accountId: string, records: readonly EmailRecord[]): Promise<void> {
  const requests = records.map((record) => ({
    PutRequest: {
      Item: { ...emailKey(accountId, record.emailId), ...(record.sesMessageId ? sesMessageIndexKey(record.sesMessageId) : {}), entity: 'email', ...record },
    },
  }));
  await batchWriteAll(requests);
}

export async function getEmailRecord(accountId: string, emailId: string): Promise<EmailRecord | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: emailKey(accountId, emailId) }));
  return Item ? toRecord(Item) : undefined;
}

/**
 * Moves the record to `to` if its status is one of `from`; false when it is
 * not (already moved, or no such record). Makes redelivered feedback a no-op.
 */
export function changeEmailStatus(accountId: string, emailId: string, from: readonly EmailStatus[], to: EmailStatus): Promise<boolean> {
  const values = Object.fromEntries(from.map((status, index) => [`:from${index}`, status]));
  return updateIf({
    Key: emailKey(accountId, emailId),
    UpdateExpression: 'SET #status = :to',
    ConditionExpression: `attribute_exists(pk) AND #status IN (${Object.keys(values).join(', ')})`,
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ...values, ':to': to },
  });
}

/** Only a record still waiting on the retry queue is settled by the worker: a repeated delivery of its queue message is a no-op. */
const STILL_QUEUED = { ConditionExpression: '#status = :queued', ExpressionAttributeNames: { '#status': 'status' } } as const;

/** Queued → sent, with SES's message id; false when the record is no longer queued. */
export function markQueuedEmailSent(accountId: string, emailId: string, sesMessageId: string): Promise<boolean> {
  return updateIf({
    Key: emailKey(accountId, emailId),
    UpdateExpression: 'SET #status = :sent, sesMessageId = :messageId, gsi1pk = :gsi1pk, gsi1sk = :gsi1sk',
    ...STILL_QUEUED,
    ExpressionAttributeValues: {
      ':queued': 'queued',
      ':sent': 'sent',
      ':messageId': sesMessageId,
      ':gsi1pk': sesMessageIndexKey(sesMessageId).gsi1pk,
      ':gsi1sk': 'EMAIL',
    },
  });
}

/** The account and email record of the message SES gave this id; undefined for a message Postlane has no record of. */
export async function findEmailBySesMessageId(sesMessageId: string): Promise<{ accountId: string; emailId: string } | undefined> {
  const { Items } = await db.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :key',
      ExpressionAttributeValues: { ':key': sesMessageIndexKey(sesMessageId).gsi1pk },
      Limit: 1,
    }),
  );
  const item = Items?.[0];
  // The record's partition is `<accountId>#EML#<emailId>`.
  return item ? { accountId: (item.pk as string).split('#')[0]!, emailId: item.emailId as string } : undefined;
}

/**
 * Queued → failed, and the email charged for it given back to the month it
 * was charged in, in one transaction: a message that is never sent is never
 * charged, and a retried call cannot refund twice. False when the record is
 * no longer queued.
 */
/** Settles a queued email as failed, refunding its charge to `period` (none: an uncharged cc or bcc copy). */
export async function failQueuedEmail(
  accountId: string,
  emailId: string,
  error: { code: string; message: string },
  period: string | undefined,
): Promise<boolean> {
  try {
    await transactWrite([
      {
        Update: {
          TableName: tableName,
          Key: emailKey(accountId, emailId),
          UpdateExpression: 'SET #status = :failed, #error = :error',
          ...STILL_QUEUED,
          ExpressionAttributeNames: { ...STILL_QUEUED.ExpressionAttributeNames, '#error': 'error' },
          ExpressionAttributeValues: { ':queued': 'queued', ':failed': 'failed', ':error': error },
        },
      },
      ...(period === undefined ? [] : [releaseEmailsItem(accountId, period, 1)]),
    ]);
    return true;
  } catch (cause) {
    if (cause instanceof TransactionCancelled && cause.reasons[0] === 'ConditionalCheckFailed') return false;
    throw cause;
  }
}

/** A broadcast worker's claim on one recipient's message: who claimed it and when, so a later attempt can tell a live claim from an abandoned one. */
export interface EmailClaim {
  token: string;
  claimedAt: string;
}

/**
 * Writes the record of a broadcast message before it goes to SES, status
 * `sending` (or its final status, for a recipient skipped without sending),
 * only if no record of that id exists: the id is derived from the broadcast
 * and the contact, so of every worker attempt only one gets to send. The
 * record found instead when the claim is refused.
 */
export async function claimEmailRecord(
  accountId: string,
  record: EmailRecord,
  claim: EmailClaim,
): Promise<{ claimed: true } | { claimed: false; existing: EmailRecord & { claim?: EmailClaim } }> {
  try {
    await db.send(
      new PutCommand({
        TableName: tableName,
        Item: { ...emailKey(accountId, record.emailId), entity: 'email', ...record, claim },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return { claimed: true };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const item =
      (error as { Item?: Record<string, unknown> }).Item ??
      (await db.send(new GetCommand({ TableName: tableName, Key: emailKey(accountId, record.emailId), ConsistentRead: true }))).Item;
    if (!item) throw error;
    return { claimed: false, existing: { ...toRecord(item), ...(item.claim ? { claim: item.claim as EmailClaim } : {}) } };
  }
}

/** Sending → its outcome, under the claim that sent it; false when another attempt settled it first. */
export function settleClaimedEmail(
  accountId: string,
  emailId: string,
  token: string,
  outcome: { status: 'sent'; sesMessageId?: string } | { status: 'failed'; error: { code: string; message: string } },
): Promise<boolean> {
  const indexed = outcome.status === 'sent' && outcome.sesMessageId ? { ...sesMessageIndexKey(outcome.sesMessageId), sesMessageId: outcome.sesMessageId } : {};
  const fields: Record<string, unknown> = { status: outcome.status, ...indexed, ...(outcome.status === 'failed' ? { error: outcome.error } : {}) };
  const names = Object.keys(fields);
  return updateIf({
    Key: emailKey(accountId, emailId),
    UpdateExpression: `SET ${names.map((name) => `#${name} = :${name}`).join(', ')}`,
    ConditionExpression: '#status = :sending AND #claim.#token = :token',
    ExpressionAttributeNames: { ...Object.fromEntries(names.map((name) => [`#${name}`, name])), '#claim': 'claim', '#token': 'token' },
    ExpressionAttributeValues: { ...Object.fromEntries(names.map((name) => [`:${name}`, fields[name]])), ':sending': 'sending', ':token': token },
  });
}

/** Removes a claim SES refused for throttling (nothing left), so a later attempt sends that message; false when the claim is no longer this one. */
export function releaseEmailClaim(accountId: string, emailId: string, token: string): Promise<boolean> {
  return deleteIf({
    Key: emailKey(accountId, emailId),
    ConditionExpression: '#status = :sending AND #claim.#token = :token',
    ExpressionAttributeNames: { '#status': 'status', '#claim': 'claim', '#token': 'token' },
    ExpressionAttributeValues: { ':sending': 'sending', ':token': token },
  });
}
