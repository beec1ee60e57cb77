/**
 * `npm run smoke -- --url <api> --table <name> [--domain example.com] [--timeout 120]`:
 * a smoke test of a deployment. Creates a throwaway account and key in the
 * table (as the admin CLI does), sends to the SES mailbox simulator's success,
 * bounce and complaint addresses, waits for SES's feedback to move the
 * contacts and email records, makes one call of every area over HTTP
 * (attachments, transactional, broadcasts, events, webhooks and the signed
 * subscription links included), cleans up what it made, and prints a
 * pass/fail table. Exits 1 when any check failed.
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
    // Where the webhook check's endpoint points; any address the deployment may reach (the check needs an attempt, not a success).
    'webhook-url': { type: 'string', default: 'https://example.com/postlane-smoke' },
  },
  strict: true,
});
if (!args.url || !URL.canParse(args.url) || !args.table) {
  process.stderr.write(
    'usage: npm run smoke -- --url https://<api> --table <table name> [--domain <verified SES domain>] [--timeout <seconds>] [--webhook-url <url>]\n',
  );
  process.exit(2);
}
const API = args.url.replace(/\/$/, '');
const TIMEOUT_MS = Number(args.timeout) * 1000;
// shared/platform/config.ts reads the table name once, on import.
process.env.TABLE_NAME = args.table;

const [{ createAccount }, apiKeys, { localVerifier, verifyDomain }, { subscriptionLinks }, { queryAll }, { accountScoped }, { batchWriteAll }] =
  await Promise.all([
    import('#shared/accounts/service.ts'),
    import('#shared/accounts/api-keys.ts'),
    import('#shared/domains/verification.ts'),
    import('#shared/sending/subscription-links.ts'),
    import('#shared/platform/dynamodb/client.ts'),
    import('#shared/platform/dynamodb/partition.ts'),
    import('#shared/platform/dynamodb/batches.ts'),
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
const created: { audienceId?: string; templateId?: string; formId?: string; webhookId?: string; broadcastId?: string; domainId?: string } = {};
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
  await check('attachments', async () => {
    const file = Buffer.from('Postlane smoke test attachment\n');
    const upload = (await call('POST', '/api/attachments', 201, { filename: 'smoke.txt', contentType: 'text/plain', size: file.length })).data;
    const put = await fetch(upload.uploadUrl, { method: 'PUT', headers: upload.headers, body: file });
    if (!put.ok) throw new Error(`upload: ${put.status}`);
    await call('POST', '/api/email/send', 200, {
      from,
      recipients: [addresses.success],
      subject: 'Postlane smoke test (attachment)',
      content: '<p>Attached</p>',
      attachments: [{ id: upload.id }],
    });
    return 'uploaded and sent';
  });
  await check('transactional', async () => {
    const result = await call('POST', '/api/transactional/send', 200, {
      to: addresses.success,
      from,
      subject: 'Postlane smoke receipt',
      content: '<p>Paid</p>',
    });
    return result.success ? 'sent' : JSON.stringify(result).slice(0, 200);
  });
  await check('broadcasts', async () => {
    created.broadcastId = (
      await call('POST', '/api/broadcasts', 201, { audienceId: created.audienceId, from, subject: 'Postlane smoke broadcast', content: '<p>News</p>' })
    ).data.id;
    await call('POST', `/api/broadcasts/${created.broadcastId}/send`, 202, {});
    let counts: Record<string, number> = {};
    await eventually('the broadcast sent', async () => {
      const broadcast = (await call('GET', `/api/broadcasts/${created.broadcastId}`, 200)).data;
      counts = broadcast.counts;
      return broadcast.status === 'sent';
    });
    return `sent to ${counts.sent} of ${counts.recipients}`;
  });
  await check('subscriptions', async () => {
    // The signed link a message carries, made as the sender makes it: the preferences page, then a one-click unsubscribe.
    const { token } = await subscriptionLinks(accountId, addresses.success);
    const page = await fetch(`${API}/preferences/${token}`);
    if (page.status !== 200) throw new Error(`preferences page: ${page.status}`);
    const unsubscribed = await fetch(`${API}/unsubscribe/${token}`, { method: 'POST', body: 'List-Unsubscribe=One-Click' });
    if (unsubscribed.status !== 200) throw new Error(`one-click unsubscribe: ${unsubscribed.status}`);
    const status = (await call('GET', `/api/contacts/${contacts.success}`, 200)).data.status;
    if (status !== 'unsubscribed') throw new Error(`the contact is ${status} after unsubscribing`);
    return 'preferences page, one-click unsubscribe';
  });
  await check('events', async () => {
    const types = new Set<string>();
    await eventually('the sends in the event log', async () => {
      for (const event of (await call('GET', '/api/events?limit=100', 200)).events) types.add(event.type);
      return types.has('email.sent');
    });
    return [...types].sort().join(', ');
  });
  await check('webhooks', async () => {
    created.webhookId = (await call('POST', '/api/webhooks', 201, { url: args['webhook-url'], events: ['email.sent'] })).data.id;
    const delivery = (await call('POST', `/api/webhooks/${created.webhookId}/test`, 200, {})).data;
    // Any receiver will do: the check is that the delivery worker took it and made an attempt.
    let last = delivery;
    await eventually('an attempt of the test delivery', async () => {
      last = (await call('GET', `/api/webhooks/${created.webhookId}/deliveries`, 200)).deliveries.find((one: { id: string }) => one.id === delivery.id);
      return (last?.attempts ?? 0) > 0;
    });
    return `test delivery ${last.status} after ${last.attempts} attempt(s)`;
  });
  await check('domains', async () => {
    const domains = (await call('GET', '/api/domains', 200)).domains ?? [];
    created.domainId = domains.find((one: { domain: string }) => one.domain === args.domain)?.id;
    return `${domains.length} listed`;
  });
  await check('docs', async () => {
    await call('GET', '/openapi.json', 200);
    await call('HEAD', '/openapi.json', 200);
    return 'GET and HEAD';
  });
}

await check('cleanup', async () => {
  if (created.webhookId) await call('DELETE', `/api/webhooks/${created.webhookId}`, 200);
  if (created.formId) await call('DELETE', `/api/forms/${created.formId}`, 200);
  if (created.templateId) await call('DELETE', `/api/templates/${created.templateId}`, 200);
  // Deleting the audience leaves its contacts (docs/api.md, "Audiences"): they go one by one.
  if (created.audienceId) {
    for (const contact of (await call('GET', `/api/contacts?audienceId=${created.audienceId}&limit=100`, 200)).contacts)
      await call('DELETE', `/api/contacts/${contact.id}`, 200);
    await call('DELETE', `/api/audiences/${created.audienceId}`, 200);
  }
  // Hands back this account's hold on the SES identity: the identity goes only with its last holder, and only
  // when Postlane created it (docs/operations.md, "Sending domains"), so an identity other accounts use stays.
  if (created.domainId) await call('DELETE', `/api/domains/${created.domainId}`, 200);
  if (keyId) await apiKeys.restrictKey(accountId, keyId, 'revoke');
  // What the API keeps for good (a sent broadcast, the account, its keys and usage, the audience's counters)
  // goes straight from the table.
  if (accountId) {
    const partitions = ['DOMAIN', 'AUDSTATS', 'BRO', 'WHK'].map((kind) => accountScoped(accountId, kind));
    partitions.push(accountId);
    if (created.broadcastId) partitions.push(accountScoped(accountId, 'BRO', created.broadcastId));
    const keys = (await Promise.all(partitions.map(partitionKeys))).flat();
    await batchWriteAll(keys.map((key) => ({ DeleteRequest: { Key: key } })));
  }
  // Email records, events and webhook deliveries expire with the retention period.
  return 'resources deleted, key revoked, account and its items removed';
});

/** Every key of one partition (a throwaway account's partitions are small). */
async function partitionKeys(pk: string): Promise<Record<string, unknown>[]> {
  return queryAll({ KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk }, ProjectionExpression: 'pk, sk' });
}

const width = Math.max(...checks.map((one) => one.name.length));
for (const one of checks) console.log(`${one.ok ? 'PASS' : 'FAIL'}  ${one.name.padEnd(width)}  ${String(one.ms).padStart(6)} ms  ${one.detail}`);
const failed = checks.filter((one) => !one.ok).length;
console.log(`${failed === 0 ? 'smoke passed' : 'smoke FAILED'}: ${checks.length - failed} passed, ${failed} failed`);
process.exitCode = failed === 0 ? 0 : 1;
