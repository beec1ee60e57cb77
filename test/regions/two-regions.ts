/**
 * Two regions in one test process: the handlers of each run with that
 * region as the one their request arrived in (`inRegionScope`), each wired
 * to its own replica, a table of its own in DynamoDB Local, kept in step by
 * `replicate`. A test file loads this module after setting its region mode
 * (vi.hoisted): shared/platform/config.ts reads the environment once.
 */
import { ScanCommand, DynamoDBClient, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { inject } from 'vitest';
import { ensureTable } from '#dev/local/dynamodb.ts';
import { inRegionScope } from '#shared/platform/dynamodb/regions.ts';
import { createAccount, showAccount } from '#shared/accounts/service.ts';
import { createApiKey } from '#shared/accounts/api-keys.ts';
import { localVerifier, verifyDomain } from '#shared/domains/verification.ts';
import { subscriptionLinks } from '#shared/sending/subscription-links.ts';
import { randomBase62 } from '#shared/platform/ids.ts';
import { invoke } from '../support/api.ts';
import { audienceCounters, recountAudience } from '../support/recount.ts';
import { storedEmails, uniqueAddress } from '../sending/support.ts';
import { replicate, type Replication } from './replication.ts';

export { EU, US } from './environment.ts';
import { EU, US } from './environment.ts';
import { deliverFeedback } from '../support/feedback.ts';

/** The table standing for each region's replica (test/regions/environment.ts names them). */
export const TABLES = (): Record<string, string> => ({ [US]: process.env.TABLE_NAME!, [EU]: `${process.env.TABLE_NAME}-eu` });

/** Creates both tables; with `replicated`, starts the replication between them. */
export async function startRegions(options: { replicated: boolean }): Promise<Replication | undefined> {
  const endpoint = inject('dynamodbEndpoint');
  await Promise.all(Object.values(TABLES()).map((table) => ensureTable(endpoint, table)));
  return options.replicated ? replicate(endpoint, TABLES(), { minDelayMs: 20, maxDelayMs: 120 }) : undefined;
}

/** A keyed or public route's handler, invoked as if the request arrived in `region`. */
export async function call(region: string, handler: string, options: { key?: string; body?: unknown; pathParameters?: Record<string, string> } = {}) {
  const result = await inRegionScope(
    () =>
      invoke(handler, {
        headers: { ...(options.key ? { 'x-api-key': options.key } : {}), ...(options.body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
        ...(options.pathParameters ? { pathParameters: options.pathParameters } : {}),
      }),
    region,
  );
  const text = typeof result.body === 'string' ? result.body : '';
  return { status: result.statusCode ?? 200, body: text.startsWith('{') ? JSON.parse(text) : text };
}

/** Work outside any request (an operator's, a test's own), done in `region`. */
export const inRegion = <T>(region: string, work: () => Promise<T>): Promise<T> => inRegionScope(work, region);

const feedback = deliverFeedback;

/** An SES bounce for `address`, delivered to the feedback function of `region` (as EventBridge does in the sending region). */
export function bounceIn(region: string, accountId: string, emailId: string, address: string): Promise<void> {
  return inRegionScope(
    () =>
      feedback({
        version: '0',
        id: `e-${randomBase62(8)}`,
        'detail-type': 'Email Bounce',
        source: 'aws.ses',
        account: '123456789012',
        time: new Date().toISOString(),
        region,
        resources: [],
        detail: {
          eventType: 'Bounce',
          mail: {
            timestamp: new Date().toISOString(),
            source: 'news@example.com',
            messageId: randomBase62(12),
            destination: [address],
            tags: { 'postlane-account': [accountId], 'postlane-email': [emailId] },
          },
          bounce: {
            bounceType: 'Permanent',
            bounceSubType: 'General',
            bouncedRecipients: [{ emailAddress: address, action: 'failed', status: '5.1.1' }],
            timestamp: new Date().toISOString(),
            feedbackId: randomBase62(8),
          },
        },
      } as never),
    region,
  );
}

/** Every item of the account in one replica, by `pk sk`. */
export async function itemsOf(table: string, accountId: string): Promise<Map<string, Record<string, unknown>>> {
  const client = new DynamoDBClient({ endpoint: inject('dynamodbEndpoint'), region: US, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const items = new Map<string, Record<string, unknown>>();
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({
        TableName: table,
        ConsistentRead: true,
        ExclusiveStartKey: start,
        FilterExpression: 'begins_with(pk, :account)',
        ExpressionAttributeValues: { ':account': { S: accountId } },
      }),
    );
    for (const item of page.Items ?? []) items.set(`${item.pk!.S} ${item.sk!.S}`, unmarshall(item));
    start = page.LastEvaluatedKey;
  } while (start);
  client.destroy();
  return items;
}

const QUOTA = 8;

interface Setup {
  accountId: string;
  key: string;
  keyId: string;
  domain: string;
  from: string;
  audienceId: string;
  /** Contacts whose status both regions move at once. */
  moved: { id: string; email: string }[];
  /** Contacts that were mailed, so that one region unsubscribes them while the other applies their bounce. */
  mailed: { email: string; emailId: string; oneClickToken: string }[];
}

/** An EU-homed sender with an audience, a few contacts and two emails sent, replicated everywhere. */
export async function arrange(replication: Replication | undefined): Promise<Setup> {
  const { accountId } = await createAccount({ plan: 'business', quota: QUOTA, region: EU });
  const { id: keyId, key } = await createApiKey({ accountId, env: 'live', permission: 'full' });
  const domain = `r${randomBase62(10).toLowerCase()}.example.com`;
  await verifyDomain(accountId, domain, localVerifier);
  await replication?.settled();
  const from = `news@${domain}`;
  const audienceId = (await call(US, 'audiences/create', { key, body: { name: 'Both regions' } })).body.data.id as string;
  // Without home regions the EU replica would not know the audience yet.
  await replication?.settled();
  // Each contact's steps are in order; the contacts are independent, so they are arranged side by side.
  const moved = await Promise.all(
    [uniqueAddress('move'), uniqueAddress('move')].map(async (email) => ({
      id: (await call(EU, 'contacts/create', { key, body: { email, audienceId } })).body.data.id as string,
      email,
    })),
  );
  const mailed = await Promise.all(
    [uniqueAddress('leaving'), uniqueAddress('leaving')].map(async (email) => {
      await call(US, 'contacts/create', { key, body: { email, audienceId } });
      const sent = await call(EU, 'email/send', { key, body: { from, recipients: [email], subject: 'Before', content: '<p>Hi</p>' } });
      const record = await call(EU, 'emails/get', { key, pathParameters: { id: sent.body.successfulEmails[0].trackingId } });
      const { oneClickUrl } = await subscriptionLinks(accountId, email);
      return { email, emailId: record.body.data.id as string, oneClickToken: new URL(oneClickUrl).pathname.split('/').pop()! };
    }),
  );
  await replication?.settled();
  return { accountId, key, keyId, domain, from, audienceId, moved, mailed };
}

const IDEMPOTENT_SUBJECT = 'Receipt (retried)';

/**
 * Traffic for one account through both regions at once: creates of one
 * address, overlapping imports, status moves, sends against a quota they
 * exceed together, retries of one idempotent send, and unsubscribes in the US
 * while bounce feedback for the same addresses lands in the EU.
 */
export async function concurrentTraffic(setup: Setup): Promise<void> {
  const { key, audienceId, from } = setup;
  const same = `same.${setup.accountId.slice(-6).toLowerCase()}@example.org`;
  const imported = [0, 1, 2, 3].map((index) => ({ email: `imported${index}.${setup.accountId.slice(-6).toLowerCase()}@example.org`, firstName: `N${index}` }));
  const idempotent = {
    from,
    recipients: [`receipt.${setup.accountId.slice(-6).toLowerCase()}@example.org`],
    subject: IDEMPOTENT_SUBJECT,
    content: '<p>Paid</p>',
    idempotencyKey: 'order-1',
  };
  const work = [US, EU].flatMap((region) => [
    call(region, 'contacts/create', { key, body: { email: same, audienceId } }),
    call(region, 'contacts/create', { key, body: { email: same.toUpperCase(), audienceId } }),
    call(region, 'contacts/bulk-import', { key, body: { audienceId, contacts: imported } }),
    ...setup.moved.map((contact) =>
      call(region, 'contacts/update', { key, pathParameters: { id: contact.id }, body: { status: region === US ? 'unsubscribed' : 'bounced' } }),
    ),
    ...[1, 2, 3].map((n) =>
      call(region, 'email/send', { key, body: { from, recipients: [uniqueAddress(`q${n}`)], subject: `Quota ${region} ${n}`, content: '<p>Hi</p>' } }),
    ),
    call(region, 'email/send', { key, body: idempotent }),
    call(region, 'email/send', { key, body: idempotent }),
    ...setup.mailed.map((contact) =>
      region === US
        ? call(US, 'subscriptions/unsubscribe', { pathParameters: { token: contact.oneClickToken } })
        : bounceIn(EU, setup.accountId, contact.emailId, contact.email),
    ),
  ]);
  await Promise.allSettled(work);
}

/** What must hold once replication has settled; each broken invariant is one line. */
export async function violations(setup: Setup): Promise<string[]> {
  const found: string[] = [];
  const [us, eu] = await Promise.all([itemsOf(TABLES()[US]!, setup.accountId), itemsOf(TABLES()[EU]!, setup.accountId)]);
  const differing = [...new Set([...us.keys(), ...eu.keys()])].filter((id) => JSON.stringify(us.get(id)) !== JSON.stringify(eu.get(id)));
  if (differing.length > 0) found.push(`replicas differ on ${differing.length} items after replication settled: ${differing.slice(0, 3).join(', ')}`);

  for (const region of [US, EU]) {
    const contacts = [...(region === US ? us : eu).values()].filter((item) => item.entity === 'contact' && item.audienceId === setup.audienceId);
    const perEmail = new Map<string, number>();
    for (const contact of contacts) perEmail.set(contact.email as string, (perEmail.get(contact.email as string) ?? 0) + 1);
    const twice = [...perEmail].filter(([, count]) => count > 1).map(([email]) => email);
    if (twice.length > 0) found.push(`${region}: ${twice.length} addresses are two contacts in one audience (${twice[0]})`);
    const [counters, recount] = await inRegion(region, () =>
      Promise.all([audienceCounters(setup.accountId, setup.audienceId), recountAudience(setup.accountId, setup.audienceId)]),
    );
    if (JSON.stringify(counters) !== JSON.stringify(recount))
      found.push(`${region}: audience counters ${JSON.stringify(counters)} differ from the contacts ${JSON.stringify(recount)}`);
    for (const contact of setup.mailed) {
      const status = contacts.find((item) => item.email === contact.email)?.status;
      if (status !== 'unsubscribed' && status !== 'bounced') found.push(`${region}: ${contact.email} is ${status} after both an unsubscribe and a bounce`);
    }
  }

  const delivered = await storedEmails(setup.domain);
  const { emailsSent } = (await inRegion(EU, () => showAccount(setup.accountId)))!;
  if (delivered.length > QUOTA) found.push(`${delivered.length} emails went out on a monthly quota of ${QUOTA}`);
  if (emailsSent !== delivered.length) found.push(`usage counts ${emailsSent} emails, SES sent ${delivered.length}`);
  const receipts = delivered.filter((email) => email.subject === IDEMPOTENT_SUBJECT).length;
  if (receipts > 1) found.push(`one idempotency key sent ${receipts} emails`);
  return found;
}

/**
 * Arranges an account, runs `concurrentTraffic` for it, waits for replication to settle and lists what broke.
 * The work is bounded (about 50 requests and their replication), and no step waits on a clock, so what it finds
 * does not depend on the machine's speed; its tests' timeout (TRAFFIC_TIMEOUT_MS) only stops a hang, and is set
 * for a loaded 2-core machine, where this took over 30 s.
 */
export const TRAFFIC_TIMEOUT_MS = 180_000;

export async function trafficViolations(replication: Replication): Promise<string[]> {
  const setup = await arrange(replication);
  await concurrentTraffic(setup);
  await replication.settled();
  return violations(setup);
}
