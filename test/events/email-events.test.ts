/**
 * The `email.*` producers: a send over HTTP, the retry worker and SES's own
 * event publishing records fed through the feedback handler each record their
 * event once, in the write of the change itself, with the record's TTL.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { MessageRejected, TooManyRequestsException, type SendEmailCommand } from '@aws-sdk/client-sesv2';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SesEventType } from '#dev/local/ses-events.ts';
import { startRetryWorker } from '#dev/local/retry-worker.ts';
import { db, tableName } from '#shared/platform/dynamodb/client.ts';
import { emailKey } from '#shared/messages/store.ts';
import { listEmailEvents, listEvents } from '#shared/events/service.ts';
import { retentionExpiry } from '#shared/platform/retention.ts';
import { ses, sendEmailInput } from '#shared/sending/transport.ts';
import { request } from '../support/api.ts';
import { eventually } from '../support/eventually.ts';
import { createSender, outgoingEmail, sesFailsFor, uniqueAddress } from '../sending/support.ts';
import { facts, feedback, sendOne, sesEventFor } from './support.ts';
import { configureFile } from '../support/worker.ts';

// A throttled send is retried at once, not after the deployed backoff.
configureFile({ RETRY_BACKOFF_SECONDS: '0' });

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
  vi.restoreAllMocks();
});

const eventsOf = async (accountId: string, emailId: string) => (await listEmailEvents(accountId, emailId, { limit: 100 }, Date.now())).events;

describe('email.sent and email.failed', () => {
  it('a send records one email.sent per accepted message, naming it, and the record and event carry the retention TTL', async () => {
    const sender = await createSender();
    const email = await sendOne(sender);

    const events = await eventsOf(sender.accountId, email.id);
    const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: emailKey(sender.accountId, email.id) }));

    expect(events).toEqual([{ id: expect.stringMatching(/^evt_/), type: 'email.sent', createdAt: expect.any(String), data: facts(email) }]);
    expect(Item?.expiresAt).toBe(retentionExpiry(Date.parse(email.createdAt)));
    expect(Item?.expiresAt).toBe(Math.floor(Date.parse(email.createdAt) / 1000) + 30 * 86_400);
  });

  it("a test key's send records email.sent too, marked test (its record is kept like a live one)", async () => {
    const sender = await createSender();
    const email = await sendOne(sender, {}, sender.testKey);

    expect(await eventsOf(sender.accountId, email.id)).toEqual([expect.objectContaining({ type: 'email.sent', data: { ...facts(email), test: true } })]);
  });

  it('a message SES refuses records email.failed with the error, and no email.sent', async () => {
    const sender = await createSender();
    const [ok, refused] = [uniqueAddress('ok'), uniqueAddress('refused')];
    sesFailsFor(refused, () => new MessageRejected({ message: 'Email address is not verified.', $metadata: {} }));

    const response = await request('POST', '/api/email/send', {
      key: sender.key,
      body: { from: sender.from, recipients: [ok, refused], subject: 'Hello', content: '<p>Hi</p>' },
    });
    const failed = (await listEvents(sender.accountId, { type: 'email.failed', limit: 10 }, Date.now())).events;
    const sent = (await listEvents(sender.accountId, { type: 'email.sent', limit: 10 }, Date.now())).events;

    expect(response.status).toBe(200);
    expect(failed).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ to: refused, error: expect.objectContaining({ code: 'MESSAGE_REJECTED' }) }) }),
    ]);
    expect(sent.map((event) => event.data.to)).toEqual([ok]);
  });

  it('a throttled message records email.sent once, from the retry worker, when it finally leaves', async () => {
    const sender = await createSender();
    const original = ses.send.bind(ses);
    let calls = 0;
    vi.spyOn(ses, 'send').mockImplementation((async (command: SendEmailCommand) => {
      if (++calls === 1) throw new TooManyRequestsException({ message: 'Maximum sending rate exceeded.', $metadata: {} });
      return original(command);
    }) as typeof ses.send);

    const queued = await sendOne(sender);
    const eventsWhileQueued = await eventsOf(sender.accountId, queued.id);
    stops.push((await startRetryWorker()).stop);
    const sent = await eventually(
      () => request('GET', `/api/emails/${queued.id}`, { key: sender.key }).then((response) => response.body.data),
      (email) => email.status === 'sent',
    );

    expect(queued.status).toBe('queued');
    expect(eventsWhileQueued).toEqual([]);
    expect(await eventsOf(sender.accountId, sent.id)).toEqual([expect.objectContaining({ type: 'email.sent', data: facts(sent) })]);
  });
  it('a message still throttled after its last attempt records one email.failed, from the retry worker', async () => {
    const sender = await createSender();
    vi.spyOn(ses, 'send').mockRejectedValue(new TooManyRequestsException({ message: 'Maximum sending rate exceeded.', $metadata: {} }));

    const queued = await sendOne(sender);
    stops.push((await startRetryWorker()).stop);
    const failed = await eventually(
      () => request('GET', `/api/emails/${queued.id}`, { key: sender.key }).then((response) => response.body.data),
      (email) => email.status === 'failed',
    );

    expect(await eventsOf(sender.accountId, failed.id)).toEqual([
      expect.objectContaining({ type: 'email.failed', data: { ...facts(failed), error: expect.objectContaining({ code: 'SES_THROTTLED' }) } }),
    ]);
  });
});

describe('SES feedback events', () => {
  it.each<[SesEventType, string, Record<string, unknown>, string]>([
    ['Delivery', 'email.delivered', {}, 'delivered'],
    ['DeliveryDelay', 'email.delivery_delayed', { deliveryDelay: { type: 'MailboxFull', expiresAt: expect.any(String) } }, 'sent'],
    ['Bounce', 'email.bounced', { bounce: { type: 'Permanent', subType: 'General' } }, 'bounced'],
    ['Complaint', 'email.complained', { complaint: { type: 'abuse' } }, 'complained'],
    ['Reject', 'email.rejected', { reject: { reason: 'Bad content' } }, 'rejected'],
  ])('%s becomes one %s with its detail, and the record moves', async (sesType, type, detail, status) => {
    const sender = await createSender();
    const email = await sendOne(sender);

    await feedback(sesEventFor(sender, email, sesType));

    const events = await eventsOf(sender.accountId, email.id);
    expect(events.map((event) => event.type)).toEqual(['email.sent', type]);
    expect(events[1]!.data).toEqual({ ...facts(email), ...detail });
    expect((await request('GET', `/api/emails/${email.id}`, { key: sender.key })).body.data.status).toBe(status);
  });

  it('a replayed bounce, and the same bounce delivered twice at once, yield one email.bounced', async () => {
    const sender = await createSender();
    const email = await sendOne(sender);
    const bounce = sesEventFor(sender, email, 'Bounce');

    await Promise.all([feedback(bounce), feedback(structuredClone(bounce))]);
    await feedback(structuredClone(bounce));

    const bounced = (await eventsOf(sender.accountId, email.id)).filter((event) => event.type === 'email.bounced');
    expect(bounced).toHaveLength(1);
  });

  it('a delivery reported after a bounce is still an event, but does not roll the record back', async () => {
    const sender = await createSender();
    const email = await sendOne(sender);

    await feedback(sesEventFor(sender, email, 'Bounce'));
    await feedback(sesEventFor(sender, email, 'Delivery'));

    expect((await eventsOf(sender.accountId, email.id)).map((event) => event.type)).toEqual(['email.sent', 'email.bounced', 'email.delivered']);
    expect((await request('GET', `/api/emails/${email.id}`, { key: sender.key })).body.data.status).toBe('bounced');
  });
});

describe('open and click tracking', () => {
  it('each Open and Click notification counts once on the record and becomes one event; replays count nothing', async () => {
    const sender = await createSender();
    const email = await sendOne(sender, { tracking: { opens: true, clicks: true } });
    const tracking = 'opens-clicks';
    const firstOpen = sesEventFor(sender, email, 'Open', new Date('2026-11-24T10:00:00.000Z'), { tracking });
    const secondOpen = sesEventFor(sender, email, 'Open', new Date('2026-11-24T11:00:00.000Z'), { tracking });
    const click = sesEventFor(sender, email, 'Click', new Date('2026-11-24T10:05:00.000Z'), { link: 'https://acme.example/pricing', tracking });

    await Promise.all([feedback(firstOpen), feedback(structuredClone(firstOpen))]);
    await feedback(secondOpen);
    await feedback(click);
    await feedback(structuredClone(click));

    const record = (await request('GET', `/api/emails/${email.id}`, { key: sender.key })).body.data;
    const events = await eventsOf(sender.accountId, email.id);
    expect(record).toMatchObject({ status: 'sent', opens: 2, clicks: 1, firstOpenedAt: '2026-11-24T10:00:00.000Z', lastClickedAt: '2026-11-24T10:05:00.000Z' });
    expect(events.map((event) => event.type).sort()).toEqual(['email.clicked', 'email.opened', 'email.opened', 'email.sent']);
    expect(events.find((event) => event.type === 'email.clicked')!.data).toEqual({
      ...facts(email),
      click: { link: 'https://acme.example/pricing', timestamp: '2026-11-24T10:05:00.000Z', userAgent: 'Mozilla/5.0', ipAddress: '192.0.2.1' },
    });
  });

  it('a message that asked only for clicks counts no opens (one tracking set serves both)', async () => {
    const sender = await createSender();
    const email = await sendOne(sender, { tracking: { clicks: true } });

    await feedback(sesEventFor(sender, email, 'Open', new Date(), { tracking: 'clicks' }));
    await feedback(sesEventFor(sender, email, 'Click', new Date(), { tracking: 'clicks' }));

    expect((await request('GET', `/api/emails/${email.id}`, { key: sender.key })).body.data).toMatchObject({ opens: 0, clicks: 1 });
    expect((await eventsOf(sender.accountId, email.id)).map((event) => event.type)).toEqual(['email.sent', 'email.clicked']);
  });

  it.each([
    [{ opens: true, clicks: true }, 'postlane-tracking', 'opens-clicks', '<a href="https://acme.example">'],
    [{ opens: true, clicks: false }, 'postlane-tracking', 'opens', '<a ses:no-track href="https://acme.example">'],
    [{ opens: false, clicks: true }, 'postlane-tracking', 'clicks', '<a href="https://acme.example">'],
    [{ opens: false, clicks: false }, 'postlane', undefined, '<a href="https://acme.example">'],
  ])('tracking %j sends through configuration set %s, tagged %s, links as %s', (tracking, set, tag, link) => {
    const input = sendEmailInput(
      outgoingEmail({
        html: '<p><a href="https://acme.example">Pricing</a> <abbr>EU</abbr></p>',
        tags: { accountId: 'acc_1', emailId: 'eml_1', trackingId: 'svc_1_1' },
        tracking,
      }),
      'postlane',
    );

    expect(input.ConfigurationSetName).toBe(set);
    expect(input.EmailTags?.find((one) => one.Name === 'postlane-track')?.Value).toBe(tag);
    expect(input.EmailTags).toContainEqual({ Name: 'postlane-tracking', Value: 'svc_1_1' });
    expect(input.Content?.Simple?.Body?.Html?.Data).toBe(`<p>${link}Pricing</a> <abbr>EU</abbr></p>`);
  });

  it('an untracked record shows zero opens and clicks and null times', async () => {
    const sender = await createSender();
    const email = await sendOne(sender);

    expect(email).toMatchObject({ opens: 0, clicks: 0, firstOpenedAt: null, lastClickedAt: null });
  });

  it.each([
    [{ opens: 'yes' }, 'tracking.opens'],
    [{ opens: true, pixels: true }, 'tracking.pixels'],
    ['all', 'tracking'],
  ])('refuses tracking %j with VALIDATION_ERROR on %s', async (tracking, field) => {
    const sender = await createSender();

    const response = await request('POST', '/api/email/send', {
      key: sender.key,
      body: { from: sender.from, recipients: [uniqueAddress()], subject: 'Hello', content: '<p>Hi</p>', tracking },
    });

    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ success: false, error: 'VALIDATION_ERROR', field });
  });
});
