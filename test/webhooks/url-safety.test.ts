/**
 * Where deliveries may go. Deployed: https to public addresses only, checked
 * after DNS resolution, connected to the address checked, never redirected.
 * Locally: http to 127.0.0.1 too, so these tests run a real receiver.
 */
import { afterEach, describe, expect, it } from 'vitest';

const { addressClass, configuredUrlPolicy, resolveWebhookTarget } = await import('#shared/webhooks/url-safety.ts');
const { postWebhook } = await import('#shared/webhooks/delivery-client.ts');
const { deliverWebhook } = await import('#shared/webhooks/deliver.ts');
const { createWebhook, getDeliveryWithAttempts, sendTestEvent } = await import('#shared/webhooks/service.ts');
const { createTestAccount } = await import('../support/accounts.ts');
const { request } = await import('../support/api.ts');
const { refusal, startReceiver, takeMessages } = await import('./support.ts');

type Policy = Parameters<typeof resolveWebhookTarget>[1];

/** DNS as a test wants it: each name answers the addresses given, and the calls are counted. */
function resolverOf(answers: Record<string, string[]>) {
  const calls: string[] = [];
  const resolve = async (host: string) => {
    calls.push(host);
    const addresses = answers[host];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: (address.includes(':') ? 6 : 4) as 4 | 6 }));
  };
  return { resolve, calls };
}

const deployed = (answers: Record<string, string[]> = {}): Policy => ({ allowLocal: false, resolve: resolverOf(answers).resolve });
const local = (answers: Record<string, string[]> = {}): Policy => ({ allowLocal: true, resolve: resolverOf(answers).resolve });

/** Every class of address a delivery must never reach, with one example each. */
const REFUSED: [string, string][] = [
  ['10.0.0.8', 'private'],
  ['172.16.5.4', 'private'],
  ['192.168.1.1', 'private'],
  ['100.64.0.1', 'carrierGradeNat'],
  ['127.0.0.1', 'loopback'],
  ['::1', 'loopback'],
  ['169.254.10.10', 'linkLocal'],
  ['169.254.169.254', 'linkLocal'],
  ['fe80::1', 'linkLocal'],
  ['fc00::1', 'uniqueLocal'],
  ['fd00:ec2::254', 'uniqueLocal'],
  ['224.0.0.251', 'multicast'],
  ['ff02::1', 'multicast'],
  ['0.0.0.0', 'unspecified'],
  ['::', 'unspecified'],
  ['::ffff:10.0.0.8', 'private'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:169.254.169.254', 'linkLocal'],
  ['255.255.255.255', 'broadcast'],
  // IPv6 forms that carry an IPv4 address: judged as the address they carry when it is not public.
  ['::7f00:1', 'loopback'],
  ['::a9fe:a9fe', 'linkLocal'],
  ['::ffff:0:a00:8', 'private'],
  ['64:ff9b::a00:8', 'private'],
  ['64:ff9b::a9fe:a9fe', 'linkLocal'],
  ['2002:a00:8::1', 'private'],
  ['2002:7f00:1::1', 'loopback'],
  ['2001:0:4136:e378:8000:63bf:f5ff:fff7', 'private'],
  // ... and refused as what they are when it is public: a translator or relay is in between.
  ['::808:808', 'ipv4Compatible'],
  ['64:ff9b::808:808', 'rfc6052'],
  ['2002:808:808::1', '6to4'],
  ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', 'teredo'],
  // Local-use NAT64 reaches whatever IPv4 network its operator chose.
  ['64:ff9b:1::a00:8', 'nat64Local'],
  ['64:ff9b:1::808:808', 'nat64Local'],
  ['fec0::1', 'siteLocal'],
  ['3fff::1', 'documentation'],
  ['4000::1', 'reserved'],
];

/** Refused even locally (not loopback), so the API refuses them under the tests' local policy too. */
const REFUSED_EMBEDDED = ['::a9fe:a9fe', '64:ff9b::a00:8', '64:ff9b:1::a00:8', '::ffff:0:a00:8', '2002:a00:8::1', '2001:0:4136:e378:8000:63bf:f5ff:fff7'];

describe('deployed', () => {
  it.each(REFUSED)('refuses %s (%s) as a literal address, with INVALID_WEBHOOK_URL on url', async (address, range) => {
    const host = address.includes(':') ? `[${address}]` : address;
    expect(addressClass(address)).toBe(range);
    const reply = await refusal(resolveWebhookTarget(`https://${host}/hooks`, deployed()));
    expect(reply).toMatchObject({ status: 422, body: { success: false, error: 'INVALID_WEBHOOK_URL', field: 'url' } });
  });

  it.each(REFUSED)('refuses a name that resolves to %s (%s)', async (address) => {
    const reply = await refusal(resolveWebhookTarget('https://hooks.example.com/in', deployed({ 'hooks.example.com': [address] })));
    expect(reply.body).toMatchObject({ error: 'INVALID_WEBHOOK_URL', field: 'url' });
  });

  it('refuses a name when any of its addresses is not public, whatever the order', async () => {
    for (const answers of [
      ['93.184.216.34', '10.0.0.8'],
      ['10.0.0.8', '93.184.216.34'],
    ]) {
      await refusal(resolveWebhookTarget('https://hooks.example.com/in', deployed({ 'hooks.example.com': answers })));
    }
  });

  it('refuses encodings of private addresses the URL parser normalises (decimal, hex, short forms)', async () => {
    for (const url of [
      'https://2130706433/',
      'https://0x7f.1/',
      'https://127.1/',
      'https://0177.0.0.1/',
      'https://[::ffff:7f00:1]/',
      // The URL parser writes these [::7f00:1] and [64:ff9b::a9fe:a9fe].
      'https://[::127.0.0.1]/',
      'https://[64:ff9b::169.254.169.254]/',
    ]) {
      const reply = await refusal(resolveWebhookTarget(url, deployed()));
      expect(reply.body).toMatchObject({ error: 'INVALID_WEBHOOK_URL' });
    }
  });

  it('accepts https to public addresses, by name or literally', async () => {
    await expect(
      resolveWebhookTarget('https://hooks.example.com/in', deployed({ 'hooks.example.com': ['93.184.216.34', '2606:2800:220:1::1'] })),
    ).resolves.toMatchObject({ target: { address: '93.184.216.34', family: 4 } });
    await expect(resolveWebhookTarget('https://[2606:4700::1111]/in', deployed())).resolves.toMatchObject({
      target: { address: '2606:4700::1111', family: 6 },
    });
  });

  it('refuses http, other schemes, credentials in the URL and what is no URL', async () => {
    for (const url of [
      'http://hooks.example.com/in',
      'ftp://hooks.example.com/',
      'file:///etc/passwd',
      'https://user:pass@hooks.example.com/',
      'hooks.example.com/in',
      '',
    ]) {
      const reply = await refusal(resolveWebhookTarget(url, deployed({ 'hooks.example.com': ['93.184.216.34'] })));
      expect(reply.body).toMatchObject({ error: 'INVALID_WEBHOOK_URL', field: 'url' });
    }
  });

  it('refuses a local receiver at delivery: nothing reaches it and the attempt says why', async () => {
    const receiver = await startReceiver();
    try {
      const { accountId } = await createTestAccount();
      const webhook = await createWebhook(accountId, { url: receiver.url, events: ['*'] }, Date.now(), local());
      const delivery = await sendTestEvent(accountId, webhook.id, Date.now());
      const [message] = await takeMessages(accountId);
      await deliverWebhook(message!, Date.now(), { policy: deployed() });
      expect(receiver.requests).toHaveLength(0);
      const stored = await getDeliveryWithAttempts(accountId, webhook.id, delivery.id, Date.now());
      expect(stored.attemptLog).toEqual([expect.objectContaining({ attempt: 1, error: expect.stringMatching(/must use https/) })]);
      expect(stored).toMatchObject({ status: 'pending', attempts: 1 });
    } finally {
      await receiver.stop();
    }
  });

  it('checks again at every attempt: a name that resolved to a public address when created and to a private one now gets nothing', async () => {
    const { accountId } = await createTestAccount();
    const answers: Record<string, string[]> = { 'hooks.example.com': ['93.184.216.34'] };
    const dns = resolverOf(answers);
    const webhook = await createWebhook(accountId, { url: 'https://hooks.example.com/in', events: ['*'] }, Date.now(), {
      allowLocal: false,
      resolve: dns.resolve,
    });
    answers['hooks.example.com'] = ['169.254.169.254'];
    const delivery = await sendTestEvent(accountId, webhook.id, Date.now());
    const [message] = await takeMessages(accountId);
    await deliverWebhook(message!, Date.now(), { policy: { allowLocal: false, resolve: dns.resolve } });
    expect(dns.calls).toEqual(['hooks.example.com', 'hooks.example.com']);
    const stored = await getDeliveryWithAttempts(accountId, webhook.id, delivery.id, Date.now());
    expect(stored.attemptLog).toEqual([expect.objectContaining({ attempt: 1, error: expect.stringMatching(/linkLocal/) })]);
  });

  it('refuses a private URL when the endpoint is created or changed', async () => {
    const { accountId } = await createTestAccount();
    const reply = await refusal(createWebhook(accountId, { url: 'https://169.254.169.254/latest/meta-data/', events: ['*'] }, Date.now(), deployed()));
    expect(reply).toMatchObject({ status: 422, body: { error: 'INVALID_WEBHOOK_URL', field: 'url' } });
    await refusal(
      createWebhook(accountId, { url: 'https://internal.example.com/', events: ['*'] }, Date.now(), deployed({ 'internal.example.com': ['10.1.2.3'] })),
    );
    // A name that does not resolve yet may: its DNS can come later, and delivery checks again.
    await expect(createWebhook(accountId, { url: 'https://not-yet.example.com/', events: ['*'] }, Date.now(), deployed())).resolves.toMatchObject({
      url: 'https://not-yet.example.com/',
    });
  });
});

describe('through the endpoint API', () => {
  it.each(REFUSED_EMBEDDED)('refuses an endpoint at [%s] when it is created or its url changed, naming url', async (address) => {
    const { key } = await createTestAccount();
    const url = `https://[${address}]/hooks`;
    const created = await request('POST', '/api/webhooks', { key, body: { url, events: ['*'] } });
    expect(created).toMatchObject({ status: 422, body: { success: false, error: 'INVALID_WEBHOOK_URL', field: 'url' } });
    const id = (await request('POST', '/api/webhooks', { key, body: { url: 'https://hooks.example.com/in', events: ['*'] } })).body.data.id;
    const changed = await request('PATCH', `/api/webhooks/${id}`, { key, body: { url } });
    expect(changed).toMatchObject({ status: 422, body: { success: false, error: 'INVALID_WEBHOOK_URL', field: 'url' } });
  });
});

describe('locally', () => {
  const receivers: Awaited<ReturnType<typeof startReceiver>>[] = [];
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((receiver) => receiver.stop()));
  });

  it('is the policy when a local DynamoDB is configured (npm start, the tests)', () => {
    expect(configuredUrlPolicy().allowLocal).toBe(true);
  });

  it('accepts http to 127.0.0.1 and delivers to a real receiver', async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    const { url, target } = await resolveWebhookTarget(receiver.url, local());
    const result = await postWebhook(url, target, '{"ok":true}', {});
    expect(result.statusCode).toBe(200);
    expect(receiver.requests).toEqual([expect.objectContaining({ method: 'POST', url: '/hooks', body: '{"ok":true}' })]);
  });

  it('still refuses private, link-local and metadata addresses', async () => {
    for (const address of ['10.0.0.8', '169.254.169.254', '[fd00:ec2::254]', '100.64.0.1']) {
      await refusal(resolveWebhookTarget(`http://${address}/`, local()));
    }
  });

  it('connects to the address it checked: the name is resolved once and never again', async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    // A name no system resolver knows: only the checked answer can reach the receiver.
    const dns = resolverOf({ 'rebind.postlane.test': ['127.0.0.1'] });
    const { url, target } = await resolveWebhookTarget(`http://rebind.postlane.test:${receiver.port}/hooks`, { allowLocal: true, resolve: dns.resolve });
    const result = await postWebhook(url, target, '{}', {});
    expect(result.statusCode).toBe(200);
    expect(dns.calls).toEqual(['rebind.postlane.test']);
    expect(receiver.requests[0]!.headers.host).toBe(`rebind.postlane.test:${receiver.port}`);
  });

  it('follows no redirect: a 3xx is a failed attempt and its target gets nothing', async () => {
    const target = await startReceiver();
    const redirecting = await startReceiver(() => (response) => response.writeHead(307, { location: target.url }).end());
    receivers.push(target, redirecting);
    const { url, target: address } = await resolveWebhookTarget(redirecting.url, local());
    const result = await postWebhook(url, address, '{}', {});
    expect(result.statusCode).toBe(307);
    expect(redirecting.requests).toHaveLength(1);
    expect(target.requests).toHaveLength(0);
  });

  it('gives up on a receiver that does not answer in time', async () => {
    const silent = await startReceiver(() => () => {});
    receivers.push(silent);
    const { url, target } = await resolveWebhookTarget(silent.url, local());
    const started = Date.now();
    const result = await postWebhook(url, target, '{}', {}, 300);
    expect(result).toMatchObject({ error: expect.stringMatching(/no answer within/) });
    expect(result.statusCode).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
