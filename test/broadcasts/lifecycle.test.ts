/**
 * The broadcast resource over HTTP: create, read, list, change and delete
 * while editable, send now or at a time (the local scheduler fires it), cancel,
 * test copies, and a test key's whole flow without SES or quota. The engine's
 * steps run through drainBroadcastQueue, deterministically.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { localScheduler } from '#dev/local/scheduler.ts';
import { config } from '#shared/platform/config.ts';
import { BROADCAST_SCHEDULE_RETRY } from '#shared/broadcasts/policy.ts';
import { showAccount } from '#shared/accounts/service.ts';
import { PLAN_PAGE_SIZE } from '#shared/broadcasts/engine.ts';
import { request } from '../support/api.ts';
import { createSender, storedEmails, throttleSesFor, uniqueAddress } from '../sending/support.ts';
import { broadcastWhen, createBroadcast, drainBroadcastQueue, mixedAudience } from './support.ts';

const CONTENT = '<p>Hi {{firstName}}</p><p><a href="{{unsubscribeUrl}}">Leave</a></p>';

describe('broadcasts: create, read, list, change', () => {
  it('creates a draft named after its subject, with empty counts, and reads it back', async () => {
    const sender = await createSender();
    const { audienceId } = await mixedAudience(sender, 3);

    const created = await request('POST', '/api/broadcasts', {
      key: sender.key,
      body: { audienceId, from: sender.from, subject: 'November', content: CONTENT, segment: { anyTags: ['a', 'b'] } },
    });

    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({
      id: expect.stringMatching(/^bro_[0-9A-Za-z]{20}$/),
      name: 'November',
      audienceId,
      segment: { anyTags: ['a', 'b'] },
      from: sender.from,
      replyTo: null,
      subject: 'November',
      templateId: null,
      content: CONTENT,
      variables: {},
      status: 'draft',
      pausedReason: null,
      scheduledAt: null,
      startedAt: null,
      completedAt: null,
      counts: { recipients: 0, sent: 0, suppressed: 0, failed: 0, remaining: 0 },
      tracking: { opens: false, clicks: false },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect((await request('GET', `/api/broadcasts/${created.body.data.id}`, { key: sender.key })).body.data).toEqual(created.body.data);
  });

  it('lists newest first, filtered by status', async () => {
    const sender = await createSender();
    const { audienceId } = await mixedAudience(sender, 1);
    const first = await createBroadcast(sender, { audienceId, content: CONTENT, name: 'first' });
    const second = await createBroadcast(sender, { audienceId, content: CONTENT, name: 'second' });
    await request('POST', `/api/broadcasts/${first.id}/cancel`, { key: sender.key });

    const all = await request('GET', '/api/broadcasts', { key: sender.key });
    expect(all.body.broadcasts.map((item: { id: string }) => item.id)).toEqual([second.id, first.id]);
    expect(all.body.pagination).toEqual({ total: 2, page: 1, limit: 20, pages: 1 });
    const cancelled = await request('GET', '/api/broadcasts?status=cancelled', { key: sender.key });
    expect(cancelled.body.broadcasts.map((item: { id: string }) => item.id)).toEqual([first.id]);
    expect((await request('GET', '/api/broadcasts?status=done', { key: sender.key })).body).toMatchObject({ error: 'VALIDATION_ERROR', field: 'status' });
  });

  it('changes a draft; a template replaces the content; null clears the segment', async () => {
    const sender = await createSender();
    const { audienceId } = await mixedAudience(sender, 1);
    const template = await request('POST', '/api/templates', {
      key: sender.key,
      body: { name: 'T', subject: 'T', components: [{ type: 'text', content: 'Hi {{firstName}}' }] },
    });
    const broadcast = await createBroadcast(sender, { audienceId, content: CONTENT, segment: { tags: ['a'] } });

    const changed = await request('PATCH', `/api/broadcasts/${broadcast.id}`, {
      key: sender.key,
      body: { templateId: template.body.data.id, segment: null, name: 'Renamed' },
    });

    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ templateId: template.body.data.id, content: null, segment: null, name: 'Renamed' });
  });

  it('refuses bad input with the code and field', async () => {
    const sender = await createSender();
    const { audienceId } = await mixedAudience(sender, 1);
    const post = (body: Record<string, unknown>) =>
      request('POST', '/api/broadcasts', { key: sender.key, body: { audienceId, from: sender.from, subject: 'S', ...body } });

    expect((await post({})).body).toMatchObject({ error: 'MISSING_REQUIRED_FIELD', field: 'content' });
    expect((await post({ content: 'x', templateId: 'tpl_x' })).body).toMatchObject({ error: 'VALIDATION_ERROR', field: 'templateId' });
    expect((await post({ content: 'x', audienceId: 'aud_0000000000000000000A' })).body).toMatchObject({ error: 'AUDIENCE_NOT_FOUND', field: 'audienceId' });
    expect((await post({ content: 'x', templateId: undefined, from: 'news@not-verified.example' })).body).toMatchObject({
      error: 'SENDER_NOT_VERIFIED',
      field: 'from',
    });
    expect((await post({ content: '{% if %}' })).body).toMatchObject({ error: 'VALIDATION_ERROR', field: 'content' });
    const far = new Date(Date.now() + 31 * 86_400_000).toISOString();
    expect((await post({ content: 'x', scheduledAt: far })).body).toMatchObject({ error: 'VALIDATION_ERROR', field: 'scheduledAt' });
    expect((await post({ content: 'x', segment: { customFields: { plan: { nested: true } } } })).status).toBe(422);
    expect((await request('GET', '/api/broadcasts/bro_0000000000000000000A', { key: sender.key })).body).toMatchObject({ error: 'BROADCAST_NOT_FOUND' });
  });
});

describe('broadcasts: lifecycle', () => {
  it('only a draft or scheduled broadcast can be changed, deleted or sent; a sent one cannot be cancelled', async () => {
    const sender = await createSender();
    const { audienceId } = await mixedAudience(sender, 4);
    const broadcast = await createBroadcast(sender, { audienceId, content: CONTENT });
    const removable = await createBroadcast(sender, { audienceId, content: CONTENT });

    expect((await request('DELETE', `/api/broadcasts/${removable.id}`, { key: sender.key })).status).toBe(200);
    expect((await request('GET', `/api/broadcasts/${removable.id}`, { key: sender.key })).status).toBe(404);
    expect((await request('POST', `/api/broadcasts/${broadcast.id}/send`, { key: sender.key, body: {} })).status).toBe(202);
    for (const [method, path, body] of [
      ['PATCH', '', { name: 'x' }],
      ['DELETE', '', undefined],
      ['POST', '/send', {}],
    ] as const) {
      const response = await request(method, `/api/broadcasts/${broadcast.id}${path}`, { key: sender.key, ...(body ? { body } : {}) });
      expect(response.status, `${method} ${path}`).toBe(409);
      expect(response.body.error).toBe('BROADCAST_NOT_EDITABLE');
    }
    await drainBroadcastQueue();
    expect((await broadcastWhen(sender.key, broadcast.id, ['sent'])).status).toBe('sent');
    expect((await request('POST', `/api/broadcasts/${broadcast.id}/cancel`, { key: sender.key })).body.error).toBe('BROADCAST_NOT_EDITABLE');
  });

  it('a cancelled broadcast sends nothing more: batches left on the queue are dropped', async () => {
    const sender = await createSender();
    const { audienceId } = await mixedAudience(sender, 120);
    const broadcast = await createBroadcast(sender, { audienceId, content: CONTENT });
    await request('POST', `/api/broadcasts/${broadcast.id}/send`, { key: sender.key, body: {} });
    // The planner runs; its batches wait on the queue.
    await drainBroadcastQueue({ only: (step) => step.kind === 'plan' });

    const cancelled = await request('POST', `/api/broadcasts/${broadcast.id}/cancel`, { key: sender.key });
    await drainBroadcastQueue();

    expect(cancelled.body.data.status).toBe('cancelled');
    expect(await storedEmails(sender.domain)).toEqual([]);
    expect((await request('GET', `/api/broadcasts/${broadcast.id}`, { key: sender.key })).body.data).toMatchObject({
      status: 'cancelled',
      counts: { sent: 0 },
    });
  });

  it('counts the recipients of each page as it is planned, so a large audience shows its progress before the planner reaches the end', async () => {
    const sender = await createSender();
    const audienceId = (await request('POST', '/api/audiences', { key: sender.key, body: { name: 'Two pages' } })).body.data.id;
    const contacts = Array.from({ length: PLAN_PAGE_SIZE + 5 }, (_, index) => ({ email: uniqueAddress(`page${index}`) }));
    for (let start = 0; start < contacts.length; start += 500) {
      expect(
        (await request('POST', '/api/contacts/bulk', { key: sender.key, body: { audienceId, contacts: contacts.slice(start, start + 500) } })).status,
      ).toBe(200);
    }
    const broadcast = await createBroadcast(sender, { audienceId, content: CONTENT });
    await request('POST', `/api/broadcasts/${broadcast.id}/send`, { key: sender.key, body: {} });
    // The first page only: the second page's step and every batch wait on the queue.
    await drainBroadcastQueue({ only: (step) => step.kind === 'plan' && (step as { after?: string }).after === undefined });

    const midway = (await request('GET', `/api/broadcasts/${broadcast.id}`, { key: sender.key })).body.data;
    expect(midway).toMatchObject({ status: 'sending', counts: { recipients: PLAN_PAGE_SIZE, sent: 0, remaining: PLAN_PAGE_SIZE } });

    // Planned to the end, the count is the whole audience; cancelled, nothing goes out.
    await drainBroadcastQueue({ only: (step) => step.kind === 'plan' });
    expect((await request('GET', `/api/broadcasts/${broadcast.id}`, { key: sender.key })).body.data.counts).toMatchObject({ recipients: PLAN_PAGE_SIZE + 5 });
    await request('POST', `/api/broadcasts/${broadcast.id}/cancel`, { key: sender.key });
    await drainBroadcastQueue();
    expect(await storedEmails(sender.domain)).toEqual([]);
  });

  it('a scheduled broadcast starts when the scheduler fires, and not before', async () => {
    const sender = await createSender();
    const { audienceId, contacts } = await mixedAudience(sender, 6);
    const broadcast = await createBroadcast(sender, { audienceId, content: CONTENT });
    const at = new Date(Date.now() + 3_600_000);
    at.setUTCMilliseconds(0);

    const scheduled = await request('POST', `/api/broadcasts/${broadcast.id}/send`, { key: sender.key, body: { scheduledAt: at.toISOString() } });

    expect(scheduled.status).toBe(202);
    expect(scheduled.body.data).toMatchObject({ status: 'scheduled', scheduledAt: at.toISOString() });
    expect(
      localScheduler()
        .schedules()
        .filter((schedule) => schedule.name.endsWith(broadcast.id)),
    ).toEqual([
      expect.objectContaining({
        at,
        // The time it is for travels with the step; what Scheduler cannot put on the queue goes to the schedules' dead letters.
        target: expect.objectContaining({
          input: JSON.stringify({ kind: 'start', accountId: sender.accountId, broadcastId: broadcast.id, scheduledAt: at.toISOString() }),
          deadLetterArn: config.BROADCAST_SCHEDULE_DLQ_ARN,
        }),
        retry: {
          maximumEventAgeSeconds: BROADCAST_SCHEDULE_RETRY.MaximumEventAgeInSeconds,
          maximumRetryAttempts: BROADCAST_SCHEDULE_RETRY.MaximumRetryAttempts,
        },
      }),
    ]);
    await drainBroadcastQueue();
    expect(await storedEmails(sender.domain)).toEqual([]);

    expect(await localScheduler().fireDue(at)).toContain(`${sender.accountId}.${broadcast.id}`);
    await drainBroadcastQueue();

    const subscribed = contacts.filter((contact) => contact.status === 'subscribed').length;
    expect(await broadcastWhen(sender.key, broadcast.id, ['sent'])).toMatchObject({ status: 'sent', counts: { sent: subscribed } });
    expect(await storedEmails(sender.domain)).toHaveLength(subscribed);
  });

  it('cancelling a scheduled broadcast removes its schedule', async () => {
    const sender = await createSender();
    const { audienceId } = await mixedAudience(sender, 1);
    const broadcast = await createBroadcast(sender, { audienceId, content: CONTENT, scheduledAt: new Date(Date.now() + 86_400_000).toISOString() });
    await request('POST', `/api/broadcasts/${broadcast.id}/send`, { key: sender.key, body: {} });
    expect(
      localScheduler()
        .schedules()
        .some((schedule) => schedule.name.endsWith(broadcast.id)),
    ).toBe(true);

    await request('POST', `/api/broadcasts/${broadcast.id}/cancel`, { key: sender.key });

    expect(
      localScheduler()
        .schedules()
        .some((schedule) => schedule.name.endsWith(broadcast.id)),
    ).toBe(false);
  });

  it('a schedule follows its broadcast: moved by PATCH and by send, removed by PATCH without a time, by DELETE and by sending it now', async () => {
    const sender = await createSender();
    const { audienceId } = await mixedAudience(sender, 1);
    const hours = (count: number) => {
      const at = new Date(Date.now() + count * 3_600_000);
      at.setUTCMilliseconds(0);
      return at;
    };
    const scheduleOf = (id: string) =>
      localScheduler()
        .schedules()
        .filter((schedule) => schedule.name.endsWith(id))
        .map((schedule) => schedule.at);
    const [moved, deleted, startedNow] = await Promise.all([1, 2, 3].map(() => createBroadcast(sender, { audienceId, content: CONTENT })));
    for (const { id } of [moved!, deleted!, startedNow!]) {
      expect((await request('POST', `/api/broadcasts/${id}/send`, { key: sender.key, body: { scheduledAt: hours(1).toISOString() } })).status).toBe(202);
    }

    // Each time taken once: computed again after the request, a second boundary in between would move it.
    const twoHours = hours(2);
    expect((await request('PATCH', `/api/broadcasts/${moved!.id}`, { key: sender.key, body: { scheduledAt: twoHours.toISOString() } })).status).toBe(200);
    expect(scheduleOf(moved!.id)).toEqual([twoHours]);
    const threeHours = hours(3);
    expect((await request('POST', `/api/broadcasts/${moved!.id}/send`, { key: sender.key, body: { scheduledAt: threeHours.toISOString() } })).status).toBe(202);
    expect(scheduleOf(moved!.id)).toEqual([threeHours]);
    const unscheduled = await request('PATCH', `/api/broadcasts/${moved!.id}`, { key: sender.key, body: { scheduledAt: null } });
    expect(unscheduled.body.data).toMatchObject({ status: 'draft', scheduledAt: null });
    expect(scheduleOf(moved!.id)).toEqual([]);

    expect((await request('DELETE', `/api/broadcasts/${deleted!.id}`, { key: sender.key })).status).toBe(200);
    expect(scheduleOf(deleted!.id)).toEqual([]);

    const now = await request('POST', `/api/broadcasts/${startedNow!.id}/send`, {
      key: sender.key,
      body: { scheduledAt: new Date(Date.now() - 60_000).toISOString() },
    });
    expect(now.body.data.status).toBe('sending');
    expect(scheduleOf(startedNow!.id)).toEqual([]);
    await drainBroadcastQueue();
  });

  it("a test key's broadcast runs the whole flow without SES and without quota", async () => {
    const sender = await createSender();
    const { audienceId, contacts } = await mixedAudience(sender, 30);
    const broadcast = await createBroadcast(sender, { audienceId, content: CONTENT }, sender.testKey);

    await request('POST', `/api/broadcasts/${broadcast.id}/send`, { key: sender.testKey, body: {} });
    await drainBroadcastQueue();

    const subscribed = contacts.filter((contact) => contact.status === 'subscribed').length;
    expect(await broadcastWhen(sender.key, broadcast.id, ['sent'])).toMatchObject({ counts: { recipients: subscribed, sent: subscribed } });
    expect(await storedEmails(sender.domain)).toEqual([]);
    expect((await showAccount(sender.accountId))?.emailsSent ?? 0).toBe(0);
  });
});

describe('POST /api/broadcasts/:id/test', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("sends one copy per address, subject prefixed [Test], with the first matching contact's data", async () => {
    const sender = await createSender();
    const { audienceId, contacts } = await mixedAudience(sender, 5);
    const broadcast = await createBroadcast(sender, { audienceId, content: CONTENT, segment: { tags: ['b'] } });
    const [me, you] = [uniqueAddress('me'), uniqueAddress('you')];

    const response = await request('POST', `/api/broadcasts/${broadcast.id}/test`, { key: sender.key, body: { to: [me, you] } });

    expect(response.status).toBe(200);
    expect(response.body.sent.map((item: { recipient: string }) => item.recipient)).toEqual([me, you]);
    const first = contacts.find((contact) => contact.tags.includes('b') && contact.status === 'subscribed')!;
    const stored = await storedEmails(sender.domain);
    // The copies go to SES together: the emulator stores them in whichever order they arrive.
    const byAddress = (a: (string | undefined)[], b: (string | undefined)[]) => String(a[0]).localeCompare(String(b[0]));
    expect(stored.map((email) => [email.destination.to[0], email.subject]).sort(byAddress)).toEqual(
      [
        [me, `[Test] News for ${first.firstName}`],
        [you, `[Test] News for ${first.firstName}`],
      ].sort(byAddress),
    );
    expect((await request('GET', `/api/broadcasts/${broadcast.id}`, { key: sender.key })).body.data.status).toBe('draft');
    const tooMany = await request('POST', `/api/broadcasts/${broadcast.id}/test`, {
      key: sender.key,
      body: { to: Array.from({ length: 6 }, () => uniqueAddress()) },
    });
    expect(tooMany.body).toMatchObject({ error: 'VALIDATION_ERROR', field: 'to' });
  });

  it('queues a copy SES throttles for the retry worker, as a send does', async () => {
    const sender = await createSender();
    const { audienceId } = await mixedAudience(sender, 1);
    const broadcast = await createBroadcast(sender, { audienceId, content: CONTENT });
    const [ok, slow] = [uniqueAddress('ok'), uniqueAddress('slow')];
    throttleSesFor(slow);

    const response = await request('POST', `/api/broadcasts/${broadcast.id}/test`, { key: sender.key, body: { to: [ok, slow] } });

    expect(response.status).toBe(200);
    expect(response.body.sent.map((item: { recipient: string }) => item.recipient)).toEqual([ok, slow]);
    const record = await request('GET', `/api/emails/${response.body.sent[1].emailId}`, { key: sender.key });
    expect(record.body.data).toMatchObject({ to: slow, status: 'queued' });
  });
});
