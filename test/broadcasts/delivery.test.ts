/**
 * A broadcast end to end over HTTP, the engine running as `npm start` runs it
 * (the worker under the local queue poller), checked against what the SES
 * emulator stored: exactly one personalised message per subscribed,
 * unsuppressed contact of the segment, none to anyone else.
 */
import { setTimeout } from 'node:timers/promises';
import type { SendEmailCommand } from '@aws-sdk/client-sesv2';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { putSuppression } from '#shared/sending/suppression-store.ts';
import { ses } from '#shared/sending/transport.ts';
import { startBroadcastWorker } from '#dev/local/broadcast-worker.ts';
import { request } from '../support/api.ts';
import { createSender, storedEmails, uniqueAddress } from '../sending/support.ts';
import { broadcastWhen, createBroadcast, mixedAudience } from './support.ts';

let stopWorker: () => Promise<void>;
beforeAll(async () => {
  stopWorker = (await startBroadcastWorker({ concurrency: 2 })).stop;
});
afterAll(() => stopWorker?.());

describe('a broadcast to a mixed audience', () => {
  it('sends one personalised message to each subscribed, unsuppressed contact of the segment, with List-Unsubscribe bound to it', async () => {
    const sender = await createSender();
    const { audienceId, contacts } = await mixedAudience(sender, 240);
    const suppressed = contacts.filter((contact, index) => contact.status === 'subscribed' && index % 13 === 0).map((contact) => contact.email);
    for (const email of suppressed) await putSuppression(sender.accountId, email, 'bounced', new Date());
    const expected = contacts.filter(
      (contact) => contact.status === 'subscribed' && contact.tags.includes('a') && contact.customFields.plan === 'pro' && !suppressed.includes(contact.email),
    );

    const broadcast = await createBroadcast(sender, {
      audienceId,
      content: '<p>Hello {{firstName}}, rank {{rank}}, {{greeting}}</p>',
      variables: { greeting: 'cheers', firstName: 'overridden' },
      segment: { tags: ['a'], customFields: { plan: 'pro' } },
    });
    const sent = await request('POST', `/api/broadcasts/${broadcast.id}/send`, { key: sender.key, body: {} });
    expect(sent.status).toBe(202);
    expect(sent.body.data.status).toBe('sending');

    const done = await broadcastWhen(sender.key, broadcast.id, ['sent']);
    expect(done).toMatchObject({
      status: 'sent',
      counts: { recipients: expected.length, sent: expected.length, suppressed: 0, failed: 0, remaining: 0 },
      completedAt: expect.any(String),
      startedAt: expect.any(String),
    });
    const stored = await storedEmails(sender.domain);
    expect(stored.map((email) => email.destination.to[0]).sort()).toEqual(expected.map((contact) => contact.email).sort());
    for (const email of stored) {
      const contact = expected.find((candidate) => candidate.email === email.destination.to[0])!;
      expect(email.subject).toBe(`News for ${contact.firstName}`);
      expect(email.body.html).toContain(`<p>Hello ${contact.firstName}, rank ${contact.customFields.rank}, cheers</p>`);
      // No {{unsubscribeUrl}} in the content: the footer carries the link, and the header the same one.
      const link = /href="([^"]*\/unsubscribe\/[^"]+)"/.exec(email.body.html!)![1]!;
      expect(email.headers).toEqual([
        { name: 'List-Unsubscribe', value: `<${link}>` },
        { name: 'List-Unsubscribe-Post', value: 'List-Unsubscribe=One-Click' },
        { name: 'List-Id', value: `Mixed <${audienceId}.${sender.domain}>` },
      ]);
    }
    expect(new Set(stored.map((email) => email.headers![0]!.value)).size).toBe(expected.length);

    // Each message is an email record in the log, and one email.sent event naming the broadcast.
    const sentEvents = await allPages(sender.key, '/api/events?type=email.sent&limit=100', 'events');
    const ofBroadcast = sentEvents.filter((event) => event.data.broadcastId === broadcast.id);
    expect(ofBroadcast.map((event) => event.data.to).sort()).toEqual(expected.map((contact) => contact.email).sort());
    expect(new Set(ofBroadcast.map((event) => event.data.emailId)).size).toBe(expected.length);
    const logged = await allPages(sender.key, `/api/emails?broadcastId=${broadcast.id}&limit=100`, 'emails');
    expect(logged.map((email) => email.to).sort()).toEqual(expected.map((contact) => contact.email).sort());
    expect(await sentBeforeBroadcastSent(sender.key, broadcast.id)).toEqual({ sent: expected.length, after: [] });
  }, 60_000);

  it('dates each email.sent when SES answered, so broadcast.sent comes after them all, even when the batch that started first ends last', async () => {
    // 87 contacts, 55 of them subscribed: a batch of 50 and one of 5.
    const sender = await createSender();
    const { audienceId } = await mixedAudience(sender, 87);
    const broadcast = await createBroadcast(sender, { audienceId, content: '<p>Hello {{firstName}}</p>' });
    // SES slow enough that the first batch's 50 messages take far longer than the second's 5, which starts a little later.
    const original = ses.send.bind(ses);
    vi.spyOn(ses, 'send').mockImplementation((async (command: SendEmailCommand) => {
      await setTimeout(100);
      return original(command);
    }) as typeof ses.send);
    await stopWorker();
    const worker = await startBroadcastWorker({
      concurrency: 2,
      wrap: (handler) => async (event, context) => {
        if (JSON.parse(event.Records[0]!.body).batch === 1) await setTimeout(200);
        return handler(event, context);
      },
    });
    try {
      expect((await request('POST', `/api/broadcasts/${broadcast.id}/send`, { key: sender.key, body: {} })).status).toBe(202);
      expect(await broadcastWhen(sender.key, broadcast.id, ['sent'])).toMatchObject({ counts: { sent: 55 } });
    } finally {
      await worker.stop();
      vi.restoreAllMocks();
      stopWorker = (await startBroadcastWorker({ concurrency: 2 })).stop;
    }
    expect(await sentBeforeBroadcastSent(sender.key, broadcast.id)).toEqual({ sent: 55, after: [] });
  }, 60_000);
});

describe('List-Id', () => {
  it("marks every message as list mail of its audience: the audience's id under the sender's domain, its name quoted or encoded", async () => {
    const sender = await createSender();
    const names = ['Acme "Weekly", news', 'Ünïcode \u00e9t\u00e9 — 日本語のニュースレター, with a name long enough to need more than one encoded word'];
    for (const name of names) {
      const audienceId = (await request('POST', '/api/audiences', { key: sender.key, body: { name } })).body.data.id;
      await request('POST', '/api/contacts', { key: sender.key, body: { audienceId, email: uniqueAddress() } });
      const broadcast = await createBroadcast(sender, { audienceId, content: '<p>Hi</p>' });
      await request('POST', `/api/broadcasts/${broadcast.id}/send`, { key: sender.key, body: {} });
      await broadcastWhen(sender.key, broadcast.id, ['sent']);

      const value = (await storedEmails(sender.domain))
        .flatMap((stored) => stored.headers ?? [])
        .find((header) => header.name === 'List-Id' && header.value.includes(audienceId))!.value;
      // RFC 2919 and SES: printable ASCII, the identifier in angle brackets, the name as an RFC 5322 phrase.
      expect(value).toMatch(/^[ -~]+$/);
      expect(value.endsWith(` <${audienceId}.${sender.domain}>`)).toBe(true);
      // A long name is cut to its first 64 characters: a description, kept within SES's 870 characters a header.
      expect(phraseText(value.slice(0, value.lastIndexOf(' <')))).toBe([...name].slice(0, 64).join('').trim());
    }
  });
});

/** The text of an RFC 5322 phrase: a quoted string unescaped, or RFC 2047 encoded words decoded (the space between two is not text). */
function phraseText(phrase: string): string {
  if (phrase.startsWith('"')) return phrase.slice(1, -1).replace(/\\(.)/g, '$1');
  const words = phrase.split(' ');
  for (const word of words) expect(word.length).toBeLessThanOrEqual(75);
  return Buffer.concat(words.map((word) => Buffer.from(/^=\?UTF-8\?B\?(.*)\?=$/.exec(word)![1]!, 'base64'))).toString('utf8');
}

/** How many email.sent events the broadcast has, and those dated after its broadcast.sent. */
async function sentBeforeBroadcastSent(key: string, broadcastId: string) {
  const [done] = (await allPages(key, '/api/events?type=broadcast.sent&limit=100', 'events')).filter((event) => event.data.broadcastId === broadcastId);
  const sent = (await allPages(key, '/api/events?type=email.sent&limit=100', 'events')).filter((event) => event.data.broadcastId === broadcastId);
  return { sent: sent.length, after: sent.filter((event) => event.createdAt > done!.createdAt).map((event) => [event.createdAt, done!.createdAt]) };
}

/** Every item of a cursor-paginated list, following `nextCursor` to the end. */
async function allPages(key: string, path: string, name: 'events' | 'emails'): Promise<Record<string, any>[]> {
  const items: Record<string, any>[] = [];
  let cursor: string | null = null;
  do {
    const page = await request('GET', `${path}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { key });
    expect(page.status).toBe(200);
    items.push(...page.body[name]);
    cursor = page.body.pagination.nextCursor;
  } while (cursor);
  return items;
}
