/**
 * `npm run smoke -- --url <api> --table <name> [--domain example.com] [--timeout 120]`:
 * a smoke test of a deployment. Creates a throwaway account and key in the
 * table (as the admin CLI does), sends to the SES mailbox simulator's success,
 * bounce and complaint addresses, waits for SES's feedback to move the
 * contacts and email records, makes one call of every area over HTTP, cleans
 * up, and prints a pass/fail table. Exits 1 when any check failed.
 *
 * Against AWS: AWS_REGION and credentials for the table, and `--domain` an SES
 * identity verified in that region (the throwaway account is marked as its
 * owner directly in the table). Locally (`npm start`), DYNAMODB_ENDPOINT names
 * DynamoDB Local and the local mailbox simulator plays SES's part.
 */
import { parseArgs } from 'node:util';

// Lambda runs Node 22+; the SDK's warning about this machine's Node 20 would only clutter the table.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const { values: args } = parseArgs({
  options: {
    url: { type: 'string' },
    table: { type: 'string' },
    domain: { type: 'string', default: 'example.com' },
    timeout: { type: 'string', default: '120' },
  },
  strict: true,
});
if (!args.url || !URL.canParse(args.url) || !args.table) {
  process.stderr.write('usage: npm run smoke -- --url https://<api> --table <table name> [--domain <verified SES domain>] [--timeout <seconds>]\n');
  process.exit(2);
}
const API = args.url.replace(/\/$/, '');
const TIMEOUT_MS = Number(args.timeout) * 1000;
// shared/config.ts reads the table name once, on import.
process.env.TABLE_NAME = args.table;

const [{ createAccount }, apiKeys, { localVerifier, verifyDomain }, { db, tableName }, { accountKey }, { DeleteCommand }] = await Promise.all([
  import('#shared/domain/accounts.ts'),
  import('#shared/domain/api-keys.ts'),
  import('#shared/domain/domain-verification.ts'),
  import('#shared/data/client.ts'),
  import('#shared/data/accounts.ts'),
  import('@aws-sdk/lib-dynamodb'),
]);

const SIMULATOR = (mailbox: string) => `${mailbox}+smoke-${Date.now()}@simulator.amazonses.com`;

interface Check {
  name: string;
  ok: boolean;
  detail: string;
  ms: number;
}

const checks: Check[] = [];

/** Runs one check; a throw fails it (its message is the detail) without stopping the others. */
async function check(name: string, run: () => Promise<string>): Promise<boolean> {
  const started = performance.now();
  try {
    checks.push({ name, ok: true, detail: await run(), ms: Math.round(performance.now() - started) });
    return true;
  } catch (error) {
    checks.push({ name, ok: false, detail: (error as Error).message.split('\n')[0]!, ms: Math.round(performance.now() - started) });
    return false;
  }
}

let key = '';

/** One API call; throws unless it answered `expected`. */
async function call(method: string, path: string, expected: number, body?: unknown, headers: Record<string, string> = {}): Promise<any> {
  const response = await fetch(`${API}${path}`, {
    method,
    headers: { ...(key ? { 'x-api-key': key } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (response.status !== expected) throw new Error(`${method} ${path}: ${response.status}, expected ${expected}: ${text.slice(0, 200)}`);
  return text && /json/.test(response.headers.get('content-type') ?? '') ? JSON.parse(text) : { text, headers: response.headers };
}

/** Polls `read` until it returns true or the timeout passes. */
async function eventually(what: string, read: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + TIMEOUT_MS;
  while (!(await read())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${TIMEOUT_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

let accountId = '';
let keyId = '';
const created: { audienceId?: string; templateId?: string; formId?: string } = {};
const addresses = { success: SIMULATOR('success'), bounce: SIMULATOR('bounce'), complaint: SIMULATOR('complaint') };
const from = `smoke@${args.domain}`;

const ready = await check('account', async () => {
  ({ accountId } = await createAccount({ plan: 'pro', name: 'smoke test (throwaway)' }));
  ({ id: keyId, key } = await apiKeys.createApiKey({ accountId, env: 'live', permission: 'full', name: 'smoke' }));
  await verifyDomain(accountId, args.domain!, localVerifier);
  return `${accountId}, key and domain ${args.domain}`;
});

if (ready) {
  const contacts: Record<string, string> = {};
  const emails: Record<string, string> = {};
  await check('audiences', async () => {
    created.audienceId = (await call('POST', '/api/audiences', 201, { name: 'Smoke test' })).data.id;
    return created.audienceId!;
  });
  await check('contacts', async () => {
    for (const [mailbox, email] of Object.entries(addresses)) {
      contacts[mailbox] = (await call('POST', '/api/contacts', 201, { email, audienceId: created.audienceId })).data.id;
    }
    return `${Object.keys(contacts).length} created`;
  });
  const sent = await check('email send', async () => {
    const result = await call('POST', '/api/email/send', 200, {
      from,
      recipients: Object.values(addresses),
      subject: 'Postlane smoke test',
      content: '<p>Smoke test</p>',
    });
    for (const [index, mailbox] of Object.keys(addresses).entries()) {
      const { trackingId } = result.successfulEmails[index];
      emails[mailbox] = (await call('GET', `/api/emails/${trackingId}`, 200)).data.id;
    }
    return `${result.successfulEmails.length} accepted`;
  });
  if (sent) {
    await check('feedback', async () => {
      const expected: Record<string, [string | undefined, string]> = {
        success: [undefined, 'delivered'],
        bounce: ['bounced', 'bounced'],
        complaint: ['complained', 'complained'],
      };
      await eventually('contacts and records moved by SES feedback', async () => {
        for (const [mailbox, [contactStatus, emailStatus]] of Object.entries(expected)) {
          if ((await call('GET', `/api/emails/${emails[mailbox]}`, 200)).data.status !== emailStatus) return false;
          if (contactStatus && (await call('GET', `/api/contacts/${contacts[mailbox]}`, 200)).data.status !== contactStatus) return false;
        }
        return true;
      });
      return 'delivered, bounced, complained';
    });
  }
  await check('otp', async () => {
    await call('POST', '/api/otp/send', 200, { from, to: addresses.success, code: '123456' });
    return 'sent';
  });
  await check('templates', async () => {
    created.templateId = (
      await call('POST', '/api/templates', 201, { name: 'Smoke', subject: 'Hi {{name}}', components: [{ type: 'text', content: 'Hello {{name}}' }] })
    ).data.id;
    await call('POST', `/api/templates/${created.templateId}/render`, 200, { variables: { name: 'smoke' } });
    return 'created and rendered';
  });
  await check('forms', async () => {
    const form = (
      await call('POST', '/api/forms', 201, {
        title: 'Smoke',
        slug: `smoke-${Date.now()}`,
        published: true,
        fields: [{ id: 'email', type: 'email', label: 'Email', required: true }],
      })
    ).data;
    created.formId = form.id;
    const origin = 'https://smoke.example';
    const view = await fetch(`${API}/api/forms/public/${form.slug}`, { headers: { origin } });
    if (view.status !== 200 || !view.headers.get('access-control-allow-origin'))
      throw new Error(`public view: ${view.status}, CORS ${view.headers.get('access-control-allow-origin')}`);
    await call('POST', `/api/forms/${form.id}/submit`, 200, { email: addresses.success }, { origin });
    return 'created, viewed (CORS), submitted';
  });
  await check('domains', async () => `${(await call('GET', '/api/domains', 200)).domains?.length ?? 0} listed`);
  await check('docs', async () => {
    await call('GET', '/openapi.json', 200);
    await call('HEAD', '/openapi.json', 200);
    return 'GET and HEAD';
  });
}

await check('cleanup', async () => {
  if (created.formId) await call('DELETE', `/api/forms/${created.formId}`, 200);
  if (created.templateId) await call('DELETE', `/api/templates/${created.templateId}`, 200);
  // Deleting the audience leaves its contacts (docs/api.md, "Audiences"): they go one by one.
  if (created.audienceId) {
    for (const contact of (await call('GET', `/api/contacts?audienceId=${created.audienceId}&limit=100`, 200)).contacts)
      await call('DELETE', `/api/contacts/${contact.id}`, 200);
    await call('DELETE', `/api/audiences/${created.audienceId}`, 200);
  }
  if (keyId) await apiKeys.restrictKey(accountId, keyId, 'revoke');
  if (accountId) await db.send(new DeleteCommand({ TableName: tableName, Key: accountKey(accountId) }));
  // Email records and events expire with the retention period.
  return 'resources deleted, key revoked, account removed';
});

const width = Math.max(...checks.map((one) => one.name.length));
for (const one of checks) console.log(`${one.ok ? 'PASS' : 'FAIL'}  ${one.name.padEnd(width)}  ${String(one.ms).padStart(6)} ms  ${one.detail}`);
const failed = checks.filter((one) => !one.ok).length;
console.log(`${failed === 0 ? 'smoke passed' : 'smoke FAILED'}: ${checks.length - failed} passed, ${failed} failed`);
process.exitCode = failed === 0 ? 0 : 1;
