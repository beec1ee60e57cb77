/**
 * `npm run load`: a bounded load run against `npm start` (in memory, on free
 * ports) with a realistic mix of contact, import, send and form traffic from
 * several accounts at once, then a recount. Prints a summary and exits 1 on
 * any 5xx, any connection error, or any counter that differs from the stored
 * contacts it counts. Not part of `npm test`.
 *
 * `npm run load -- --seconds 30 --connections 10`
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { findFreePort } from '#dev/local/ports.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = index === -1 ? fallback : Number(process.argv[index + 1]);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a whole number`);
  return value;
}

const SECONDS = option('seconds', 30);
const CONNECTIONS = option('connections', 10);
/** Accounts (each with its own audience, form and keys): several tenants share the table, as deployed. */
const ACCOUNTS = 4;
/** Keys per account: 200 requests per second each on `business`, so the run measures the server, not the rate limit. */
const KEYS_PER_ACCOUNT = 3;
const SEEDED_CONTACTS = 50;

interface Tenant {
  accountId: string;
  liveKeys: string[];
  testKey: string;
  audienceId: string;
  formId: string;
  /** Contacts this run may update or delete; deleted ones leave it. */
  contactIds: string[];
  /** What the run was told it added and removed, for the expected total. */
  created: number;
  deleted: number;
}

/** The kinds of request in the mix, with their share of the traffic. */
const MIX = [
  ['create', 25],
  ['list', 15],
  ['getByEmail', 10],
  ['update', 15],
  ['delete', 5],
  ['import', 5],
  ['send', 10],
  ['submit', 5],
  ['stats', 10],
] as const;
type Kind = (typeof MIX)[number][0];

function pickKind(): Kind {
  let roll = Math.random() * 100;
  for (const [kind, share] of MIX) {
    roll -= share;
    if (roll < 0) return kind;
  }
  return 'list';
}

let sequence = 0;
const uniqueEmail = (prefix: string) => `${prefix}${process.pid}.${Date.now().toString(36)}.${sequence++}@load.example.com`;
const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;

async function startStack(): Promise<{ child: ChildProcess; api: string; dynamodb: string }> {
  const [port, dynamodbPort, sesPort] = [await findFreePort(), await findFreePort(), await findFreePort()];
  const { DYNAMODB_ENDPOINT: _d, SES_ENDPOINT: _s, TABLE_NAME: _t, ...inherited } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/start.ts'], {
    cwd: ROOT,
    env: { ...inherited, LOCAL_IN_MEMORY: '1', PORT: String(port), DYNAMODB_PORT: String(dynamodbPort), SES_PORT: String(sesPort) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const deadline = Date.now() + 120_000;
  while (!/^ready$/m.test(output)) {
    if (child.exitCode !== null) throw new Error(`npm start exited early:\n${output}`);
    if (Date.now() > deadline) throw new Error(`npm start gave no ready line:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  // Its access lines would drown the summary; they are not read any further.
  child.stdout!.removeAllListeners('data').resume();
  return { child, api: `http://127.0.0.1:${port}`, dynamodb: `http://127.0.0.1:${dynamodbPort}` };
}

async function call(api: string, method: string, path: string, key: string, body?: unknown): Promise<any> {
  const response = await fetch(`${api}${path}`, {
    method,
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await response.json()) as any;
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

async function createTenants(api: string): Promise<Tenant[]> {
  const [{ createAccount }, { createApiKey }, { localVerifier, verifyDomain }] = await Promise.all([
    import('#shared/accounts/service.ts'),
    import('#shared/accounts/api-keys.ts'),
    import('#shared/domains/verification.ts'),
  ]);
  return Promise.all(
    Array.from({ length: ACCOUNTS }, async (_, index) => {
      const { accountId } = await createAccount({ plan: 'business', name: `load ${index}` });
      const liveKeys = await Promise.all(
        Array.from({ length: KEYS_PER_ACCOUNT }, async () => (await createApiKey({ accountId, env: 'live', permission: 'full' })).key),
      );
      const testKey = (await createApiKey({ accountId, env: 'test', permission: 'full' })).key;
      await verifyDomain(accountId, 'example.com', localVerifier);
      const key = liveKeys[0]!;
      const audienceId = (await call(api, 'POST', '/api/audiences', key, { name: 'Load' })).data.id as string;
      const form = (
        await call(api, 'POST', '/api/forms', key, {
          title: `Load ${index}`,
          published: true,
          audienceId,
          fields: [
            { id: 'email', type: 'email', label: 'Email', required: true },
            { id: 'firstName', type: 'text', label: 'First name' },
          ],
        })
      ).data;
      await call(api, 'POST', '/api/contacts/bulk', key, {
        audienceId,
        contacts: Array.from({ length: SEEDED_CONTACTS }, () => ({ email: uniqueEmail('seed') })),
      });
      const listed = await call(api, 'GET', `/api/contacts?audienceId=${audienceId}&limit=100`, key);
      return {
        accountId,
        liveKeys,
        testKey,
        audienceId,
        formId: form.id,
        contactIds: listed.contacts.map((contact: { id: string }) => contact.id),
        created: SEEDED_CONTACTS,
        deleted: 0,
      };
    }),
  );
}

interface Planned {
  kind: Kind;
  tenant: Tenant;
  contactId?: string;
}

/** Requests whose connection timed out before an answer. */
const abandoned: Planned[] = [];

interface Tally {
  byKind: Record<string, Record<number, number>>;
  serverErrors: { kind: Kind; status: number; body: string }[];
}

/** The next request of the mix, and what it means for the expected counts once answered. */
function plan(tenants: Tenant[], pending: Map<object, Planned>, request: autocannon.Request & Record<string, unknown>, context: object): autocannon.Request {
  const tenant = pick(tenants);
  let kind = pickKind();
  // Updates and deletes need a contact; a drained pool turns them into creates.
  const contactId = kind === 'update' || kind === 'delete' ? tenant.contactIds[Math.floor(Math.random() * tenant.contactIds.length)] : undefined;
  if ((kind === 'update' || kind === 'delete') && !contactId) kind = 'create';
  if (kind === 'delete') tenant.contactIds.splice(tenant.contactIds.indexOf(contactId!), 1);
  // The previous request on this connection timed out unanswered: it may still land.
  const unanswered = pending.get(context);
  if (unanswered) abandoned.push(unanswered);
  pending.set(context, { kind, tenant, ...(contactId ? { contactId } : {}) });

  const headers = { 'content-type': 'application/json', 'x-api-key': pick(tenant.liveKeys) };
  const json = (method: string, path: string, body?: unknown) =>
    ({ ...request, method, path, headers, body: body === undefined ? undefined : JSON.stringify(body) }) as autocannon.Request;
  switch (kind) {
    case 'create':
      return json('POST', '/api/contacts', { email: uniqueEmail('c'), audienceId: tenant.audienceId, firstName: 'Load', tags: ['load'] });
    case 'list':
      return json('GET', `/api/contacts?audienceId=${tenant.audienceId}&limit=20&page=${1 + Math.floor(Math.random() * 3)}`);
    case 'getByEmail':
      return json('GET', `/api/contacts/email/${encodeURIComponent(uniqueEmail('nobody'))}?audienceId=${tenant.audienceId}`);
    case 'update':
      return json('PATCH', `/api/contacts/${contactId}`, {
        status: pick(['subscribed', 'unsubscribed', 'pending', 'bounced']),
        customFields: { touched: Date.now() },
      });
    case 'delete':
      return json('DELETE', `/api/contacts/${contactId}`);
    case 'import':
      return json('POST', '/api/contacts/bulk', {
        audienceId: tenant.audienceId,
        contacts: Array.from({ length: 20 }, () => ({ email: uniqueEmail('i'), status: pick(['subscribed', 'pending']) })),
      });
    case 'send':
      return {
        ...json('POST', '/api/email/send', {
          from: 'Load <news@example.com>',
          recipients: [uniqueEmail('r'), uniqueEmail('r')],
          subject: 'Load {{n}}',
          content: '<p>Hello {{n}}</p>',
          variables: { n: 1 },
        }),
        headers: { ...headers, 'x-api-key': tenant.testKey },
      };
    case 'submit':
      return {
        ...json('POST', `/api/forms/${tenant.formId}/submit`, { email: uniqueEmail('f'), firstName: 'Form' }),
        headers: { 'content-type': 'application/json' },
      };
    case 'stats':
      return json('GET', `/api/audiences/${tenant.audienceId}/stats`);
  }
}

/** Books an answer: what it added or removed, and whether it was a 5xx. */
function record(tally: Tally, planned: Planned, status: number, body: string): void {
  const counts = (tally.byKind[planned.kind] ??= {});
  counts[status] = (counts[status] ?? 0) + 1;
  if (status >= 500) tally.serverErrors.push({ kind: planned.kind, status, body: body.slice(0, 300) });
  const { tenant } = planned;
  if (planned.kind === 'create' && status === 201) {
    tenant.created++;
    tenant.contactIds.push(JSON.parse(body).data.id);
  }
  if (planned.kind === 'import' && status === 200) tenant.created += JSON.parse(body).imported;
  if (planned.kind === 'submit' && status === 200) tenant.created++;
  if (planned.kind === 'delete' && status === 200) tenant.deleted++;
  // A delete that failed leaves the contact: it may be used again.
  if (planned.kind === 'delete' && status !== 200 && status !== 404) tenant.contactIds.push(planned.contactId!);
}

/** Writes whose answers the end of the run cut off: they may or may not have landed. */
function unbooked(pending: Map<object, Planned>, tenant: Tenant): { added: number; removed: number } {
  const open = [...pending.values(), ...abandoned].filter((planned) => planned.tenant === tenant);
  const count = (kind: Kind) => open.filter((planned) => planned.kind === kind).length;
  return { added: count('create') + count('submit') + 20 * count('import'), removed: count('delete') };
}

/**
 * Waits until no counter moved for a few seconds: requests the end of the run
 * cut off are still being served, and a recount read while one lands compares
 * a list read before it with counters read after it.
 */
async function settle(tenants: Tenant[]): Promise<void> {
  const { getAudienceCounters } = await import('#shared/audiences/store.ts');
  const snapshot = async () => JSON.stringify(await Promise.all(tenants.map((tenant) => getAudienceCounters(tenant.accountId, tenant.audienceId))));
  let last = await snapshot();
  for (let quiet = 0, waited = 0; quiet < 3 && waited < 120; waited++) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const next = await snapshot();
    quiet = next === last ? quiet + 1 : 0;
    last = next;
  }
}

async function recount(api: string, tenants: Tenant[], pending: Map<object, Planned>) {
  const { getAudienceCounters } = await import('#shared/audiences/store.ts');
  const { queryContacts } = await import('#shared/contacts/store.ts');
  const { CONTACT_STATUSES } = await import('#shared/audiences/contact-status.ts');
  return Promise.all(
    tenants.map(async (tenant) => {
      const stored = (await queryContacts(tenant.accountId, { audienceId: tenant.audienceId }, 0, 1_000_000)).contacts;
      const storedByStatus = Object.fromEntries(CONTACT_STATUSES.map((status) => [status, stored.filter((contact) => contact.status === status).length]));
      const counters = await getAudienceCounters(tenant.accountId, tenant.audienceId);
      const stats = (await call(api, 'GET', `/api/audiences/${tenant.audienceId}/stats`, tenant.liveKeys[0]!)).data;
      const countedByStatus = Object.fromEntries(CONTACT_STATUSES.map((status) => [status, counters?.byStatus[status] ?? 0]));
      const statsByStatus = Object.fromEntries(CONTACT_STATUSES.map((status) => [status, stats[status]]));
      const expected = tenant.created - tenant.deleted;
      const open = unbooked(pending, tenant);
      const exact =
        counters?.count === stored.length &&
        stats.total === stored.length &&
        JSON.stringify(storedByStatus) === JSON.stringify(countedByStatus) &&
        JSON.stringify(storedByStatus) === JSON.stringify(statsByStatus);
      const nothingLost = stored.length >= expected - open.removed && stored.length <= expected + open.added;
      return {
        accountId: tenant.accountId,
        expected,
        open,
        stored: stored.length,
        counter: counters?.count,
        stats: stats.total,
        storedByStatus,
        countedByStatus,
        exact,
        nothingLost,
      };
    }),
  );
}

async function main(): Promise<number> {
  console.log(`load: starting npm start in memory (${SECONDS} s, ${CONNECTIONS} connections, ${ACCOUNTS} accounts)`);
  const stack = await startStack();
  try {
    process.env.DYNAMODB_ENDPOINT = stack.dynamodb;
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
    const tenants = await createTenants(stack.api);
    const tally: Tally = { byKind: {}, serverErrors: [] };
    const pending = new Map<object, Planned>();

    const result = await autocannon({
      url: stack.api,
      connections: CONNECTIONS,
      duration: SECONDS,
      // Seconds: a slow answer under load is not a failure; only a 5xx or a lost write is.
      timeout: 60,
      requests: [
        {
          setupRequest: (request, context) => plan(tenants, pending, request as autocannon.Request & Record<string, unknown>, context),
          onResponse: (status, body, context) => {
            const planned = pending.get(context);
            pending.delete(context);
            if (planned) record(tally, planned, status, body);
          },
        },
      ],
    });
    await settle(tenants);
    const recounts = await recount(stack.api, tenants, pending);

    const served = Object.values(tally.byKind).reduce((sum, counts) => sum + Object.values(counts).reduce((a, b) => a + b, 0), 0);
    console.log(
      `\nrequests ${result.requests.total} in ${result.duration} s: ${result.requests.average} per second, latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms`,
    );
    console.log(`answers booked ${served}, connection errors ${result.errors}, timeouts ${result.timeouts}, non-2xx ${result.non2xx}`);
    for (const [kind, counts] of Object.entries(tally.byKind)) console.log(`  ${kind.padEnd(11)} ${JSON.stringify(counts)}`);
    for (const line of recounts) {
      const cutOff = line.open.added + line.open.removed > 0 ? ` (+${line.open.added}/-${line.open.removed} cut off by the end of the run)` : '';
      console.log(
        `  recount ${line.accountId}: answered ${line.expected}${cutOff}, stored ${line.stored}, counter ${line.counter}, stats ${line.stats}, by status ${JSON.stringify(line.storedByStatus)}` +
          ` ${line.exact ? 'exact' : `COUNTER MISMATCH ${JSON.stringify(line.countedByStatus)}`}${line.nothingLost ? '' : ' LOST WRITES'}`,
      );
    }
    for (const error of tally.serverErrors.slice(0, 10)) console.log(`  5xx ${error.kind} ${error.status} ${error.body}`);

    const failed = tally.serverErrors.length > 0 || result.errors > 0 || recounts.some((line) => !line.exact || !line.nothingLost);
    console.log(failed ? '\nload: FAILED' : `\nload: ok — zero 5xx, ${recounts.length} audiences recounted exactly`);
    return failed ? 1 : 0;
  } finally {
    stack.child.kill('SIGTERM');
  }
}

process.exitCode = await main();
