/**
 * cc and bcc (docs/api.md, "Sending email"): a message that carries signed
 * links is never copied to them; each gets a message of its own, addressed to
 * it alone, with links bound to it. Suppression covers them like recipients.
 */
import { describe, expect, it } from 'vitest';
import { verifySubscriptionToken } from '#shared/sending/subscription-links.ts';
import { request } from '../support/api.ts';
import {
  addContact,
  createSender,
  expectReplayed,
  expectSent,
  storedEmails,
  suppressedFailure,
  uniqueAddress,
  uniqueAddresses,
  type StoredEmail,
} from './support.ts';

const WITH_LINKS = '<p>News. <a href="{{unsubscribeUrl}}">Unsubscribe</a> · <a href="{{preferencesUrl}}">Preferences</a></p>';
const ONE_CLICK = { rawBody: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } };

function send(key: string, body: Record<string, unknown>) {
  return request('POST', '/api/email/send', { key, body });
}

function sentTo(stored: StoredEmail[], address: string): StoredEmail {
  const found = stored.filter((email) => [...email.destination.to, ...email.destination.cc, ...email.destination.bcc].includes(address));
  expect(found).toHaveLength(1);
  return found[0]!;
}

/** The address a signed link acts on. */
async function ownerOf(url: string): Promise<string | undefined> {
  return (await verifySubscriptionToken(url.slice(url.lastIndexOf('/') + 1)))?.email;
}

/** The signed links a stored message shows, and whom each acts on. */
async function linksIn(email: StoredEmail) {
  const unsubscribe = /href="([^"]*\/unsubscribe\/[^"]+)"/.exec(email.body.html!)![1]!;
  const preferences = /href="([^"]*\/preferences\/[^"]+)"/.exec(email.body.html!)![1]!;
  return { unsubscribe, preferences, unsubscribeFor: await ownerOf(unsubscribe), preferencesFor: await ownerOf(preferences) };
}

describe('cc and bcc of messages with signed links', () => {
  it('gives each cc and bcc address a message of its own, To that address, with links and List-Unsubscribe bound to it', async () => {
    const sender = await createSender();
    const [ann, bob, carl, bea] = [uniqueAddress('ann'), uniqueAddress('bob'), uniqueAddress('carl'), uniqueAddress('bea')];

    const response = await send(sender.key, { from: sender.from, recipients: [ann, bob], cc: [carl], bcc: [bea], subject: 'News', content: WITH_LINKS });

    expectSent(response, {
      message: 'Email sent to 2 recipients',
      sent: [ann, bob, carl, bea],
      recipientCount: 2,
      // Charged per recipient: the cc and bcc copies do not count extra (docs/api.md, "Quota"), even as messages of their own.
      emailsRemaining: 1_000_000 - 2,
    });
    const stored = await storedEmails(sender.domain);
    expect(stored.map((email) => email.destination)).toEqual([
      { to: [ann], cc: [], bcc: [] },
      { to: [bob], cc: [], bcc: [] },
      { to: [carl], cc: [], bcc: [] },
      { to: [bea], cc: [], bcc: [] },
    ]);
    for (const address of [ann, bob, carl, bea]) {
      const email = sentTo(stored, address);
      const links = await linksIn(email);
      expect(links).toMatchObject({ unsubscribeFor: address, preferencesFor: address });
      expect(email.headers).toEqual([
        { name: 'List-Unsubscribe', value: `<${links.unsubscribe}>` },
        { name: 'List-Unsubscribe-Post', value: 'List-Unsubscribe=One-Click' },
      ]);
    }
    // Each copy has its record, found by the tracking id the answer gave.
    const beaCopy = response.body.successfulEmails[3].trackingId;
    const record = await request('GET', `/api/emails/${beaCopy}`, { key: sender.key });
    expect(record.body.data).toMatchObject({ to: bea, cc: [], bcc: [], status: 'sent', subject: 'News' });
    const annRecord = await request('GET', `/api/emails/${response.body.successfulEmails[0].trackingId}`, { key: sender.key });
    expect(annRecord.body.data).toMatchObject({ to: ann, cc: [], bcc: [] });
  });

  it('lets the bcc reader unsubscribe only the bcc address: the main recipient stays subscribed and keeps receiving', async () => {
    const sender = await createSender();
    const [ann, bea] = [uniqueAddress('ann'), uniqueAddress('bea')];
    const annId = await addContact(sender.key, ann);

    await send(sender.key, { from: sender.from, recipients: [ann], bcc: [bea], subject: 'News', content: WITH_LINKS });
    const beaCopy = sentTo(await storedEmails(sender.domain), bea);
    const listUnsubscribe = /^<(.+)>$/.exec(beaCopy.headers!.find((header) => header.name === 'List-Unsubscribe')!.value)![1]!;
    const oneClick = await fetch(listUnsubscribe, { method: 'POST', body: ONE_CLICK.rawBody, headers: ONE_CLICK.headers });
    const preferences = await fetch((await linksIn(beaCopy)).preferences);

    expect(oneClick.status).toBe(200);
    expect(await oneClick.text()).toContain(bea);
    const page = await preferences.text();
    expect(page).toContain(bea);
    expect(page).not.toContain(ann);
    expect((await request('GET', `/api/contacts/${annId}`, { key: sender.key })).body.data.status).toBe('subscribed');
    const again = await send(sender.key, { from: sender.from, recipients: [ann], bcc: [bea], subject: 'More news', content: WITH_LINKS });
    expect(again.status).toBe(200);
    expect(again.body.successfulEmails.map((item: { recipient: string }) => item.recipient)).toEqual([ann]);
    expect(again.body.failedEmails).toEqual([suppressedFailure(bea)]);
    expect((await storedEmails(sender.domain)).filter((email) => email.subject === 'More news').map((email) => email.destination.to)).toEqual([[ann]]);
  });

  it('separates cc and bcc for {{preferencesUrl}} alone too, however the template writes it', async () => {
    const sender = await createSender();
    const [ann, carl, dora] = [uniqueAddress('ann'), uniqueAddress('carl'), uniqueAddress('dora')];

    await send(sender.key, {
      from: sender.from,
      recipients: [ann],
      cc: [carl],
      subject: 'Prefs',
      content: '<p><a href="{{preferencesUrl}}">Preferences</a></p>',
    });
    await send(sender.key, {
      from: sender.from,
      recipients: [ann],
      cc: [dora],
      subject: 'Encoded',
      content: '<p>Preferences: {{ preferencesUrl | url_encode }}</p>',
    });

    const stored = await storedEmails(sender.domain);
    expect(stored.map((email) => [email.subject, email.destination])).toEqual([
      ['Prefs', { to: [ann], cc: [], bcc: [] }],
      ['Prefs', { to: [carl], cc: [], bcc: [] }],
      ['Encoded', { to: [ann], cc: [], bcc: [] }],
      ['Encoded', { to: [dora], cc: [], bcc: [] }],
    ]);
    const preferencesOf = async (email: StoredEmail) =>
      (await verifySubscriptionToken(/preferences(?:\/|%2F)([A-Za-z0-9_.-]+)/.exec(email.body.html!)![1]!))?.email;
    expect(await Promise.all(stored.map(preferencesOf))).toEqual([ann, carl, ann, dora]);
    // Without List-Unsubscribe: the message has no unsubscribe link to point it at.
    expect(stored[1]!.headers ?? []).toEqual([]);
  });

  it('gives the cc reader no link of the recipient when the template builds the name and reverses the link', async () => {
    const sender = await createSender();
    const [ann, carl] = uniqueAddresses('ann', 'carl');
    const annId = await addContact(sender.key, ann);
    // Neither `preferencesUrl` nor the link's token appears as such in the source or in the output.
    const content = `{% assign k = 'prefer' | append: 'encesUrl' %}<p>{{ [k] | split: '' | reverse | join: '' }}</p>`;

    await send(sender.key, { from: sender.from, recipients: [ann], cc: [carl], subject: 'Disguised', content });

    const stored = await storedEmails(sender.domain);
    expect(stored.map((email) => email.destination)).toEqual([
      { to: [ann], cc: [], bcc: [] },
      { to: [carl], cc: [], bcc: [] },
    ]);
    const unreversed = (email: StoredEmail) => [.../<p>(.*)<\/p>/.exec(email.body.html!)![1]!].reverse().join('');
    const carlsLink = unreversed(sentTo(stored, carl));
    expect(await ownerOf(carlsLink)).toBe(carl);
    // What the attack was for: the cc reader's link changes nothing of the recipient's.
    await fetch(carlsLink, { method: 'POST', body: 'status=unsubscribed', headers: ONE_CLICK.headers });
    expect((await request('GET', `/api/contacts/${annId}`, { key: sender.key })).body.data.status).toBe('subscribed');
  });

  it.each([
    ['base64', `{{ [k] | base64_encode }}`],
    ['URL-encoded', `{{ [k] | url_encode }}`],
    ['escaped twice', `{{ [k] | escape | escape }}`],
    ['cut in pieces', `{{ [k] | slice: 0, 30 }}-{{ [k] | slice: 30, 400 }}`],
    ['upper case', `{{ [k] | upcase }}`],
    ['as a list', `{% assign parts = [k] | split: '.' %}{% for part in parts %}{{ part | reverse }}{% endfor %}`],
    ['only tested', `{% if [k] contains '/' %}yes{% endif %}`],
  ])('separates cc for a signed link read under a built name, %s', async (_encoding, output) => {
    const sender = await createSender();
    const [ann, carl] = uniqueAddresses('ann', 'carl');

    await send(sender.key, {
      from: sender.from,
      recipients: [ann],
      cc: [carl],
      subject: 'Encoded',
      content: `{% assign k = 'unsub' | append: 'scribeUrl' %}<p>${output}</p>`,
    });

    const stored = await storedEmails(sender.domain);
    expect(stored.map((email) => email.destination)).toEqual([
      { to: [ann], cc: [], bcc: [] },
      { to: [carl], cc: [], bcc: [] },
    ]);
    // The link was read, so each message carries List-Unsubscribe, bound to its own reader.
    const listUnsubscribe = (email: StoredEmail) => /^<(.+)>$/.exec(email.headers!.find((header) => header.name === 'List-Unsubscribe')!.value)![1]!;
    expect(await Promise.all(stored.map((email) => ownerOf(listUnsubscribe(email))))).toEqual([ann, carl]);
  });

  it('sends a cc or bcc address that is also a recipient one message, and one copy for an address in both cc and bcc', async () => {
    const sender = await createSender();
    const [ann, carl] = [uniqueAddress('ann'), uniqueAddress('carl')];

    const response = await send(sender.key, { from: sender.from, recipients: [ann], cc: [ann, carl], bcc: [carl], subject: 'Once', content: WITH_LINKS });

    expect(response.body.successfulEmails.map((item: { recipient: string }) => item.recipient)).toEqual([ann, carl]);
    expect((await storedEmails(sender.domain)).map((email) => email.destination.to)).toEqual([[ann], [carl]]);
  });

  it('sends no copies when no recipient could be sent to', async () => {
    const sender = await createSender();
    const [gone, carl] = [uniqueAddress('gone'), uniqueAddress('carl')];
    await addContact(sender.key, gone, 'bounced');

    const response = await send(sender.key, { from: sender.from, recipients: [gone], cc: [carl], subject: 'Nobody', content: WITH_LINKS });

    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ error: 'ALL_RECIPIENTS_FAILED', successfulEmails: [], recipientCount: 1, emailsRemaining: 1_000_000 });
    expect(await storedEmails(sender.domain)).toEqual([]);
  });

  it('takes up to 50 cc and 50 bcc, since no message carries them together', async () => {
    const sender = await createSender();
    const many = (name: string) => Array.from({ length: 50 }, (_, index) => uniqueAddress(`${name}${index}`));
    const [cc, bcc] = [many('cc'), many('bcc')];

    const response = await send(sender.testKey, { from: sender.from, recipients: [uniqueAddress('ann')], cc, bcc, subject: 'Wide', content: WITH_LINKS });

    expect(response.status).toBe(200);
    expect(response.body.successfulEmails).toHaveLength(101);
  });

  it("holds each copy's render to its own time: 50 slow renders together pass bounds that each passes alone", async () => {
    const sender = await createSender();
    // About 10 ms of rendering each: 50 of them in flight together would each count 500 ms against a 250 ms bound.
    const slow = `{% for i in (1..10000) %}{% endfor %}${WITH_LINKS}`;

    const response = await send(sender.testKey, {
      from: sender.from,
      recipients: [uniqueAddress('ann')],
      cc: uniqueAddresses(...Array(50).fill('cc')),
      subject: 'Slow',
      content: slow,
    });

    expect(response.status).toBe(200);
    expect(response.body.successfulEmails).toHaveLength(51);
  });

  it('replays an idempotent send exactly, copies included, and sends nothing again', async () => {
    const sender = await createSender();
    const body = {
      from: sender.from,
      recipients: [uniqueAddress('ann')],
      bcc: [uniqueAddress('bea')],
      subject: 'Once only',
      content: WITH_LINKS,
      idempotencyKey: 'copies-1',
    };

    const first = await send(sender.key, body);
    const replay = await send(sender.key, body);

    expectReplayed(replay, first);
    expect(await storedEmails(sender.domain)).toHaveLength(2);
  });

  it('makes and records the copies for a test key without reaching SES or the quota', async () => {
    const sender = await createSender();
    const [ann, bea] = [uniqueAddress('ann'), uniqueAddress('bea')];

    const response = await send(sender.testKey, { from: sender.from, recipients: [ann], bcc: [bea], subject: 'Test', content: WITH_LINKS });

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ recipientCount: 1, emailsRemaining: 1_000_000 });
    expect(response.body.successfulEmails.map((item: { recipient: string }) => item.recipient)).toEqual([ann, bea]);
    const record = await request('GET', `/api/emails/${response.body.successfulEmails[1].trackingId}`, { key: sender.key });
    expect(record.body.data).toMatchObject({ to: bea, test: true, status: 'sent' });
    expect(await storedEmails(sender.domain)).toEqual([]);
  });
});

describe('cc and bcc of messages without signed links', () => {
  it('stay on the one message of each recipient, charged once per recipient', async () => {
    const sender = await createSender();
    const [ann, carl, bea] = [uniqueAddress('ann'), uniqueAddress('carl'), uniqueAddress('bea')];

    const response = await send(sender.key, {
      from: sender.from,
      recipients: [ann],
      cc: [carl],
      bcc: [bea],
      subject: 'Plain',
      content: '<p>No links here</p>',
    });

    expect(response.body).toMatchObject({ successfulEmails: [{ recipient: ann }], failedEmails: [], recipientCount: 1, emailsRemaining: 1_000_000 - 1 });
    expect((await storedEmails(sender.domain)).map((email) => email.destination)).toEqual([{ to: [ann], cc: [carl], bcc: [bea] }]);
  });

  it('still fit in one SES message: cc and bcc together hold at most 49', async () => {
    const sender = await createSender();
    const many = (count: number) => Array.from({ length: count }, () => uniqueAddress());

    const response = await send(sender.key, {
      from: sender.from,
      recipients: [uniqueAddress()],
      cc: many(30),
      bcc: many(20),
      subject: 'Plain',
      content: '<p>Hi</p>',
    });

    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ error: 'VALIDATION_ERROR', field: 'bcc' });
    expect(await storedEmails(sender.domain)).toEqual([]);
  });
});

describe('suppressed cc and bcc', () => {
  /** An account with cc and bcc addresses suppressed each way, and one that is not. */
  async function suppressedCopies() {
    const sender = await createSender();
    const [ann, ok, unsubscribed, bounced, complained, leftByLink] = uniqueAddresses('ann', 'ok', 'unsub', 'bounced', 'complained', 'left');
    await addContact(sender.key, unsubscribed, 'unsubscribed');
    await addContact(sender.key, bounced, 'bounced');
    await addContact(sender.key, complained, 'complained');
    // A non-contact who unsubscribed through the link of an earlier copy.
    await send(sender.key, { from: sender.from, recipients: [ann], bcc: [leftByLink], subject: 'Earlier', content: WITH_LINKS });
    const earlier = sentTo(await storedEmails(sender.domain), leftByLink);
    expect((await fetch((await linksIn(earlier)).unsubscribe, { method: 'POST', body: ONE_CLICK.rawBody, headers: ONE_CLICK.headers })).status).toBe(200);
    const body = { from: sender.from, recipients: [ann], cc: [ok, unsubscribed, bounced], bcc: [complained, leftByLink] };
    const failedEmails = [unsubscribed, bounced, complained, leftByLink].map(suppressedFailure);
    return { sender, ann, ok, body, failedEmails };
  }

  it('are left out of every message and listed as RECIPIENT_SUPPRESSED, without failing the send or counting as recipients', async () => {
    const { sender, ann, ok, body, failedEmails } = await suppressedCopies();

    const response = await send(sender.key, { ...body, subject: 'Plain', content: '<p>Hi</p>' });

    expectSent(response, { message: 'Email sent to 1 recipient', sent: [ann], failed: failedEmails, recipientCount: 1, emailsRemaining: expect.any(Number) });
    expect((await storedEmails(sender.domain)).filter((email) => email.subject === 'Plain').map((email) => email.destination)).toEqual([
      { to: [ann], cc: [ok], bcc: [] },
    ]);
    const record = await request('GET', `/api/emails/${response.body.successfulEmails[0].trackingId}`, { key: sender.key });
    expect(record.body.data).toMatchObject({ to: ann, cc: [ok], bcc: [] });
  });

  it('get no copy of their own when the message carries signed links', async () => {
    const { sender, ann, ok, body, failedEmails } = await suppressedCopies();

    const response = await send(sender.key, { ...body, subject: 'Linked', content: WITH_LINKS });

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ message: 'Email sent to 1 recipient', failedEmails, recipientCount: 1 });
    expect(response.body.successfulEmails.map((item: { recipient: string }) => item.recipient)).toEqual([ann, ok]);
    expect((await storedEmails(sender.domain)).filter((email) => email.subject === 'Linked').map((email) => email.destination.to)).toEqual([[ann], [ok]]);
  });
});
