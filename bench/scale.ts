/**
 * How reads of one audience behave as it grows to 1,000, 10,000 and 100,000
 * contacts (stats, count and page 1 must cost the same at every size), and
 * what a bulk import of 1,000 contacts costs.
 */
import { batchWriteAll } from '#shared/platform/dynamodb/batches.ts';
import { transactWrite } from '#shared/platform/dynamodb/client.ts';
import type { DynamoMeter } from './dynamo-meter.ts';
import { counterUpdate } from '#shared/audiences/store.ts';
import { newContactPuts, presenceDelta, sumDeltas, type ContactRecord } from '#shared/contacts/store.ts';
import { newId } from '#shared/platform/ids.ts';
import { measureOnce, medianCost, type Progress, type RequestCost } from './metered.ts';
import { expectCall } from './stack.ts';
import type { BenchAccount } from './fixtures.ts';

export const SCALE_SIZES = [1_000, 10_000, 100_000] as const;

export interface ScalePoint {
  contacts: number;
  stats: RequestCost;
  count: RequestCost;
  listPage1: RequestCost;
}

export interface BulkImportCost extends RequestCost {
  contacts: number;
}

/** Contacts written per BatchWriteItem round: 8 calls of 25 puts (a contact and its claim each) at once. */
const SEED_SLICE = 100;
/** Slices in flight together: enough to keep DynamoDB Local busy on two cores without queueing for long. */
const SEED_WORKERS = 4;

/**
 * Adds `count` contacts (subscribed unless `statusOf` says otherwise) to an
 * audience through the contacts store module's own items, BatchWriteItem in
 * parallel, then the counters in one update, so the audience reads exactly as
 * if they had been created one by one. Answers the contacts written.
 */
export async function seedContacts(
  accountId: string,
  audienceId: string,
  count: number,
  now: Date,
  statusOf: (index: number) => ContactRecord['status'] = () => 'subscribed',
  tagsOf: (index: number) => string[] = () => [],
): Promise<ContactRecord[]> {
  const timestamp = now.toISOString();
  const contacts: ContactRecord[] = Array.from({ length: count }, (_, index) => ({
    contactId: newId('con', now.getTime() - count + index),
    email: `seed.${audienceId.toLowerCase()}.${Date.now().toString(36)}.${index}@example.org`,
    audienceId,
    firstName: 'Seed',
    status: statusOf(index),
    tags: tagsOf(index),
    customFields: {},
    createdAt: timestamp,
    updatedAt: timestamp,
    lastActivityAt: timestamp,
    version: 1,
  }));
  let next = 0;
  await Promise.all(
    Array.from({ length: SEED_WORKERS }, async () => {
      while (next < contacts.length) {
        const slice = contacts.slice(next, next + SEED_SLICE);
        next += SEED_SLICE;
        await batchWriteAll(slice.flatMap((contact) => newContactPuts(accountId, contact)));
      }
    }),
  );
  await transactWrite([counterUpdate(accountId, audienceId, sumDeltas(contacts.map((contact) => presenceDelta(contact.status, 1))), now)]);
  return contacts;
}

/**
 * One audience per size, loaded first; then the three reads of every audience
 * measured in interleaved rounds, so that load from elsewhere on the machine
 * falls on every size alike and a difference in time is the audience's own.
 */
export async function measureScale(api: string, meter: DynamoMeter, account: BenchAccount, rounds: number, onProgress: Progress): Promise<ScalePoint[]> {
  const key = account.liveKeys[0]!;
  const audiences: { size: number; audienceId: string }[] = [];
  for (const size of SCALE_SIZES) {
    const audienceId = (await expectCall(api, 201, 'POST', '/api/audiences', { key, body: { name: `Scale ${size}` } })).data.id as string;
    const started = performance.now();
    await seedContacts(account.accountId, audienceId, size, new Date());
    onProgress(`loaded ${size.toLocaleString('en-US')} contacts in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const count = (await expectCall(api, 200, 'GET', `/api/audiences/${audienceId}`, { key })).data.count;
    if (count !== size) throw new Error(`audience count is ${count} after loading ${size} contacts`);
    audiences.push({ size, audienceId });
  }
  const reads = {
    stats: (audienceId: string) => `/api/audiences/${audienceId}/stats`,
    count: (audienceId: string) => `/api/audiences/${audienceId}`,
    listPage1: (audienceId: string) => `/api/contacts?audienceId=${audienceId}&page=1&limit=50`,
  };
  const call = (audienceId: string, path: (audienceId: string) => string) => ({ method: 'GET', path: path(audienceId), key, status: 200 });
  const samples = new Map<string, RequestCost[]>();
  for (const { audienceId } of audiences) {
    for (const path of Object.values(reads)) await measureOnce(api, meter, call(audienceId, path));
  }
  for (let round = 0; round < rounds; round++) {
    for (const { size, audienceId } of audiences) {
      for (const [read, path] of Object.entries(reads)) {
        const cost = await measureOnce(api, meter, call(audienceId, path));
        samples.set(`${size} ${read}`, [...(samples.get(`${size} ${read}`) ?? []), cost]);
      }
    }
  }
  const medianOf = (size: number, read: string) => medianCost(samples.get(`${size} ${read}`)!);
  return audiences.map(({ size }) => ({
    contacts: size,
    stats: medianOf(size, 'stats'),
    count: medianOf(size, 'count'),
    listPage1: medianOf(size, 'listPage1'),
  }));
}

/** POST /api/contacts/bulk of `contacts` new addresses into an audience, measured once after a warm-up import of 10. */
export async function measureBulkImport(api: string, meter: DynamoMeter, account: BenchAccount, contacts: number): Promise<BulkImportCost> {
  const key = account.liveKeys[0]!;
  const audienceId = (await expectCall(api, 201, 'POST', '/api/audiences', { key, body: { name: 'Import' } })).data.id as string;
  let batch = 0;
  const body = (size: number) => {
    batch++;
    return {
      audienceId,
      contacts: Array.from({ length: size }, (_, index) => ({
        email: `import.${batch}.${index}.${Date.now().toString(36)}@example.org`,
        firstName: 'Imported',
      })),
    };
  };
  await expectCall(api, 200, 'POST', '/api/contacts/bulk', { key, body: body(10) });
  const cost = await measureOnce(api, meter, { method: 'POST', path: '/api/contacts/bulk', key, status: 200, body: body(contacts) });
  return { contacts, ...cost };
}
