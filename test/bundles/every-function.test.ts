/**
 * Every deployed function run as AWS runs it: its esbuild bundle (code
 * splitting, the SDK's shape tables rewritten, the stand-ins aliased in), in
 * a Node process of its own with the environment the stack gives it, calling
 * AWS through the local stack (test/bundles/support.ts). The rest of the
 * suite runs the TypeScript; this file runs what is deployed, at least once
 * per function: each HTTP route with its contract's example, answering its
 * documented status, and each worker with an event made by the functions
 * that feed it. Their AWS calls are recorded on the wire and checked against
 * the roles with every other test's (test/support/iam.ts).
 *
 * First the paths no other test reaches, because in process they go through
 * a local stand-in: the link-signing key from Secrets Manager, SES's
 * identities with the ownership TXT record, EventBridge, the scheduler.
 */
import { DeleteMessageCommand, ReceiveMessageCommand, type Message } from '@aws-sdk/client-sqs';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqsEvent } from '#dev/local/queue-poller.ts';
import { sesEventBridgeEvent } from '#dev/local/ses-events.ts';
import { StreamReader, streamEvent } from '#dev/local/stream-poller.ts';
import { ROUTES } from '#functions/routes.ts';
import { addMember } from '#shared/accounts/members.ts';
import { issueSignInCode } from '#shared/accounts/sign-in.ts';
import { config } from '#shared/platform/config.ts';
import { publicBase } from '#shared/platform/public-urls.ts';
import { signingSecret } from '#shared/platform/signing/secret.ts';
import { sqs } from '#shared/sending/retry-queue.ts';
import type { Endpoint } from '#shared/platform/http/contract.ts';
import { handlerModules } from '../../lib/bundling.ts';
import { request } from '../support/api.ts';
import { assertDocumented } from '../support/contract.ts';
import { eventually } from '../support/eventually.ts';
import { feedbackBatch } from '../support/feedback.ts';
import { TEST_EVENT_BUS } from '../support/iam.ts';
import { Owner, pathOf, referenceCall, routeKey } from '../isolation/resources.ts';
import { storedEmails, uniqueAddress } from '../sending/support.ts';
import { confirmationLink, createForm, submit } from '../forms/support.ts';
import { startReceiver, type Receiver } from '../webhooks/support.ts';
import { BUNDLE_EXPORT_SYNC_MAX_CONTACTS, startFunctions, type Functions } from './support.ts';

let functions: Functions;
/** Owns one of everything the routes act on; `deleter`'s resources are the ones the DELETE routes remove. */
let owner: Owner;
let deleter: Owner;
let receiver: Receiver;
let stream: StreamReader;

beforeAll(async () => {
  // The key Secrets Manager holds is the one the in-process fixtures sign links and cursors with.
  functions = await startFunctions(async () => (await signingSecret()).toString('utf8'));
  stream = await StreamReader.open(config.DYNAMODB_ENDPOINT!, config.TABLE_NAME, config.AWS_REGION);
  [owner, deleter, receiver] = await Promise.all([Owner.create(), Owner.create(), startReceiver()]);
}, 240_000);

afterAll(async () => {
  stream?.close();
  await Promise.all([functions?.stop(), receiver?.stop()]);
});

/** A request to a bundle (with `key`, as `x-api-key`), its answer parsed, checked against the API description like every answer of the suite. */
async function send(method: string, url: string, options: { key?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const answer = await functions.http(method, url, {
    headers: {
      ...(options.key === undefined ? {} : { 'x-api-key': options.key }),
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...options.headers,
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const headers = new Headers(answer.headers);
  const text = answer.body.toString('utf8');
  assertDocumented({
    method,
    path: url.split('?')[0]!,
    status: answer.statusCode,
    contentType: headers.get('content-type'),
    body: text,
    header: (name) => headers.get(name) ?? undefined,
  });
  return {
    status: answer.statusCode,
    handler: answer.handler,
    headers,
    body: /json/.test(headers.get('content-type') ?? '') && text ? JSON.parse(text) : text,
  };
}

/** The same with the owner's key (or another's). */
const call = (method: string, url: string, body?: unknown, key = owner.key) => send(method, url, { key, body });

/** Every visible message of a queue, taken off it. */
async function takeQueued(queueUrl: string): Promise<Message[]> {
  const taken: Message[] = [];
  for (;;) {
    const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
    if (Messages.length === 0) return taken;
    for (const message of Messages) await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle }));
    taken.push(...Messages);
  }
}

/** Runs a queue's worker bundle, as its event source would, on each message until the queue stays empty for a second. */
async function drain(queueUrl: string, worker: string): Promise<number> {
  let ran = 0;
  for (let idle = 0; idle < 10; ) {
    const messages = await takeQueued(queueUrl);
    idle = messages.length === 0 ? idle + 1 : 0;
    for (const message of messages) {
      const answer = (await functions.invoke(worker, sqsEvent([message], `arn:aws:sqs:us-east-1:000000000000:${queueUrl.split('/').pop()}`, 'us-east-1'))) as {
        batchItemFailures?: unknown[];
      } | null;
      expect(answer?.batchItemFailures ?? []).toEqual([]);
      ran++;
    }
    if (messages.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return ran;
}

/** The stream's new event records of one account. */
async function eventRecords(accountId: string): Promise<DynamoDBRecord[]> {
  return (await stream.read()).filter((record) => String(record.dynamodb?.Keys?.pk?.S).startsWith(`${accountId}#`));
}

describe('the paths only a deployed function takes', () => {
  it("adds a domain through SES's identities, verified once SES has seen its DKIM records and the account's TXT record is in DNS", async () => {
    const domain = `b${Date.now().toString(36)}.example.com`;
    const created = await call('POST', '/api/domains', { domain });
    expect(created).toMatchObject({ status: 201, handler: 'domains/create', body: { data: { domain, status: 'pending' } } });
    expect(functions.standIns.identities.has(domain)).toBe(true);
    const id = created.body.data.id as string;
    const ownership = (created.body.data.records as { type: string; name: string; value: string }[]).find((record) => record.name.startsWith('_postlane.'));
    expect(ownership).toBeDefined();

    // SES verified the identity, but the account's own record is not published: still pending.
    functions.standIns.identities.verify(domain);
    expect((await call('GET', `/api/domains/${id}`)).body.data.status).toBe('pending');

    functions.dns.publish(ownership!.name, ownership!.value);
    expect(await call('GET', `/api/domains/${id}`)).toMatchObject({ status: 200, body: { data: { domain, status: 'verified' } } });

    // Another account adding it finds the identity SES has (AlreadyExists, then read) and gets its own proof to publish.
    const other = await call('POST', '/api/domains', { domain }, deleter.key);
    expect(other).toMatchObject({ status: 201, body: { data: { domain, status: 'pending' } } });

    // Once its own record is published, its check now (POST …/verify) finds it verified and records domain.verified with it.
    const otherProof = (other.body.data.records as { name: string; value: string }[]).find((record) => record.name.startsWith('_postlane.'))!;
    functions.dns.publish(otherProof.name, otherProof.value);
    expect(await call('POST', `/api/domains/${other.body.data.id}/verify`, undefined, deleter.key)).toMatchObject({
      status: 200,
      handler: 'domains/verify',
      body: { data: { domain, status: 'verified' } },
    });
  });

  it('reads the link-signing key from Secrets Manager: a signed cursor pages on, a signed link opens its page', async () => {
    const { id: audienceId } = await owner.audience();
    for (const email of [uniqueAddress('paged'), uniqueAddress('paged')]) {
      expect((await request('POST', '/api/contacts', { key: owner.key, body: { email, audienceId } })).status).toBe(201);
    }
    const first = await call('GET', '/api/events?limit=1');
    expect(first.body.pagination.nextCursor).toEqual(expect.any(String));
    const next = await call('GET', `/api/events?limit=1&cursor=${encodeURIComponent(first.body.pagination.nextCursor)}`);
    expect(next).toMatchObject({ status: 200, body: { events: [expect.anything()] } });
    expect(next.body.events[0].id).not.toBe(first.body.events[0].id);
    expect((await send('GET', `/preferences/${encodeURIComponent(await owner.token())}`)).status).toBe(200);
  });

  it('schedules a broadcast with EventBridge Scheduler (the chunk it loads on first use), moves it and removes it when cancelled', async () => {
    const { id } = (
      await call('POST', '/api/broadcasts', { audienceId: (await owner.audience()).id, from: owner.sender.from, subject: 'Later', content: '<p>Later</p>' })
    ).body.data;
    const at = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString();
    expect(await call('POST', `/api/broadcasts/${id}/send`, { scheduledAt: at(2) })).toMatchObject({ status: 202, body: { data: { status: 'scheduled' } } });
    expect(await call('PATCH', `/api/broadcasts/${id}`, { scheduledAt: at(3) })).toMatchObject({ status: 200, body: { data: { status: 'scheduled' } } });
    expect(await call('POST', `/api/broadcasts/${id}/cancel`)).toMatchObject({ status: 200, body: { data: { status: 'cancelled' } } });
  });

  it('fans a recorded event out to a webhook and onto EventBridge', async () => {
    const webhook = await request('POST', '/api/webhooks', { key: owner.key, body: { url: receiver.url, events: ['contact.created'] } });
    expect(webhook.status).toBe(201);
    await stream.read();
    const email = uniqueAddress('fanned');
    expect((await call('POST', '/api/contacts', { email, audienceId: (await owner.audience()).id })).status).toBe(201);

    const records = await eventually(
      () => eventRecords(owner.accountId),
      (found) => found.length > 0,
    );
    expect(records.length).toBeGreaterThan(0);
    expect(await functions.invoke('events/fan-out', streamEvent(records))).toMatchObject({ batchItemFailures: [] });
    const put = functions.standIns.events.filter((event) => event.handler === 'events/fan-out' && JSON.stringify(event.entry).includes(email));
    expect(put).toEqual([
      expect.objectContaining({ entry: expect.objectContaining({ EventBusName: TEST_EVENT_BUS, Source: 'postlane', DetailType: 'contact.created' }) }),
    ]);

    // And the webhook delivery it queued, delivered by the webhook worker, signed.
    expect(await drain(config.WEBHOOK_QUEUE_URL!, 'webhooks/deliver')).toBeGreaterThan(0);
    const delivered = receiver.requests.filter((received) => received.body.includes(email));
    expect(delivered).toHaveLength(1);
    expect(delivered[0]!.headers['webhook-signature']).toMatch(/^v1,/);
  });
});

describe('the workers, each fed by the functions that feed it', () => {
  it('the retry worker sends a message SES throttled, after email/send queued it', async () => {
    const to = uniqueAddress('throttled');
    functions.standIns.throttled.add(to);
    const sent = await call('POST', '/api/email/send', { from: owner.sender.from, recipients: [to], subject: 'Later', content: '<p>Later</p>' });
    expect(sent.status).toBe(200);
    expect(sent.body.successfulEmails).toEqual([expect.objectContaining({ recipient: to, queued: true })]);
    functions.standIns.throttled.delete(to);

    expect(await drain(config.RETRY_QUEUE_URL!, 'email/send-queued')).toBe(1);
    expect((await storedEmails(owner.sender.domain)).filter((email) => email.destination.to.includes(to))).toHaveLength(1);
  });

  it('the broadcast worker sends a broadcast from the step broadcasts/send queued', async () => {
    const audience = (await call('POST', '/api/audiences', { name: 'Bundle broadcast' })).body.data;
    const recipient = uniqueAddress('broadcast');
    expect((await call('POST', '/api/contacts', { email: recipient, audienceId: audience.id })).status).toBe(201);
    const { id } = (await call('POST', '/api/broadcasts', { audienceId: audience.id, from: owner.sender.from, subject: 'Now', content: '<p>Now</p>' })).body
      .data;
    expect((await call('POST', `/api/broadcasts/${id}/send`, {})).status).toBe(202);

    expect(await drain(config.BROADCAST_QUEUE_URL!, 'broadcasts/work')).toBeGreaterThan(0);
    expect((await call('GET', `/api/broadcasts/${id}`)).body.data).toMatchObject({ status: 'sent', counts: { sent: 1 } });
    expect((await storedEmails(owner.sender.domain)).filter((email) => email.destination.to.includes(recipient))).toHaveLength(1);
  });

  it('the export worker writes the CSV of an audience too large for its request, the export audiences/export queued', async () => {
    const audience = (await call('POST', '/api/audiences', { name: 'Bundle export' })).body.data;
    for (let index = 0; index <= BUNDLE_EXPORT_SYNC_MAX_CONTACTS; index++) {
      expect((await call('POST', '/api/contacts', { email: uniqueAddress('exported'), audienceId: audience.id })).status).toBe(201);
    }
    const queued = await call('POST', `/api/audiences/${audience.id}/exports`);
    expect(queued).toMatchObject({ status: 202, handler: 'audiences/export', body: { data: { status: 'queued' } } });

    expect(await drain(config.EXPORT_QUEUE_URL!, 'audiences/export-work')).toBe(1);
    const read = await call('GET', `/api/audiences/${audience.id}/exports/${queued.body.data.id}`);
    expect(read).toMatchObject({
      status: 200,
      handler: 'audiences/get-export',
      body: { data: { status: 'ready', rows: BUNDLE_EXPORT_SYNC_MAX_CONTACTS + 1, url: expect.any(String) } },
    });
  });

  it("the feedback function applies SES's bounce of a message a bundle sent, and the reconciliation reads the suppression list", async () => {
    const to = uniqueAddress('bounces');
    const sent = await call('POST', '/api/transactional/send', { from: owner.sender.from, to, subject: 'Hello', content: '<p>Hello</p>' });
    expect(sent.status).toBe(200);
    const [stored] = (await storedEmails(owner.sender.domain)).filter((email) => email.destination.to.includes(to));
    const bounce = sesEventBridgeEvent('Bounce', { accountId: owner.accountId, emailId: sent.body.emailId, messageId: stored!.messageId, recipient: to });
    // As the feedback queue's event source hands it over: a batch of the events the rule put on the queue.
    expect(await functions.invoke('feedback/ses-events', feedbackBatch(bounce))).toEqual({ batchItemFailures: [] });
    expect((await call('GET', `/api/emails/${sent.body.emailId}`)).body.data).toMatchObject({ status: 'bounced' });

    const scheduled = {
      version: '0',
      id: 'bundle-suite',
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      account: '000000000000',
      time: new Date().toISOString(),
      region: 'us-east-1',
      resources: [],
      detail: {},
    };
    await functions.invoke('feedback/reconcile', scheduled);
  });
});

/** What a route's success is documented as: its 2xx statuses. */
const documentedStatuses = (route: Endpoint) => Object.keys(route.responses).map(Number);

/** The routes in an order that leaves each one's resource standing for the next: reads and changes first, removals last, the audience's after what lives in it, the sender's domain after every removal that first creates what it removes (a broadcast needs it). */
const removal = (route: Endpoint) => (route.method !== 'DELETE' ? 0 : route.handler === 'audiences/delete' ? 2 : route.handler === 'domains/delete' ? 3 : 1);
const ORDERED = [...ROUTES].sort((a, b) => removal(a) - removal(b));

let optIn: Promise<string> | undefined;

/** The token of a real double opt-in: a submission to a form that asks for it, and the link it mailed. */
function optInToken(): Promise<string> {
  optIn ??= (async () => {
    const { id: audienceId } = await owner.audience();
    const form = await createForm(owner.key, { audienceId, settings: { doubleOptIn: true, from: owner.sender.from } });
    const email = uniqueAddress('opt-in');
    expect((await submit(form.id, { email })).status).toBe(200);
    return decodeURIComponent((await confirmationLink(owner.sender, email)).split('/').pop()!);
  })();
  return optIn;
}

describe('every route, with its contract example', () => {
  it.each(ORDERED.map((route) => [routeKey(route), route] as const))('%s answers its documented status from its bundle', async (_, route) => {
    const actor = route.method === 'DELETE' ? deleter : owner;
    const made = await referenceCall(route, actor, actor);
    const body: Record<string, unknown> | undefined = made.body === undefined ? undefined : { ...(made.body as Record<string, unknown>) };
    // What the example cannot know: a receiver this machine can reach, a domain nobody added, the sender of each email of a batch, a pending confirmation.
    if (route.handler === 'webhooks/create') body!.url = receiver.url;
    if (route.handler === 'domains/create') body!.domain = `r${Date.now().toString(36)}.example.com`;
    if (route.handler === 'email/batch') body!.emails = (body!.emails as Record<string, unknown>[]).map((email) => ({ ...email, from: actor.sender.from }));
    if (route.params?.token === 'confirmationToken') made.params.token = await optInToken();
    // A person's routes carry the session cookie from the dashboard's origin; signing out ends the session it is sent with.
    const cookie = route.auth === 'session' ? await (route.handler === 'session/delete' ? actor.signIn() : actor.session()) : undefined;
    if (route.handler === 'session/update') body!.accountId = actor.accountId;
    if (route.handler === 'session/create') {
      // Signing in takes a code really mailed to a member: one issued as POST /api/session/code issues it.
      const email = uniqueAddress('bundle-admin');
      await addMember(actor.accountId, { email, role: 'admin' }, { type: 'operator', id: 'test' }, new Date());
      Object.assign(body!, { email, code: await issueSignInCode(email, new Date()), accountId: actor.accountId });
    }
    const url = `${pathOf(route, made.params)}${made.query ? `?${made.query}` : ''}`;
    const answer = await send(route.method, url, {
      ...(route.auth === 'key' ? { key: actor.key } : {}),
      ...(cookie === undefined ? {} : { headers: { cookie, origin: new URL(publicBase()).origin } }),
      body,
    });
    expect(answer.handler).toBe(route.handler);
    expect(documentedStatuses(route), JSON.stringify(answer.body).slice(0, 500)).toContain(answer.status);
  });

  it('and the functions no route names: the fallback and the CORS preflight', async () => {
    expect(await send('GET', '/nowhere')).toMatchObject({ handler: 'system/fallback', status: 404 });
    const preflight = await send('OPTIONS', '/api/forms/public/anything', {
      headers: { origin: 'https://www.example.com', 'access-control-request-method': 'GET' },
    });
    expect(preflight).toMatchObject({ handler: 'system/preflight', status: 204 });
  });
});

it('ran every deployed function, and every request a function made was one the suite knows', () => {
  expect([...functions.invoked].sort()).toEqual(handlerModules());
  expect(functions.standIns.unexpected).toEqual([]);
});
