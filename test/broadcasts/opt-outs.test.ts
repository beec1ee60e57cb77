/**
 * Unsubscribing from all mail means all: an address that left all of the
 * account's mail (the preferences page's "Unsubscribe from all", or an
 * unsubscribe link while it was no contact) receives no broadcast, whatever
 * audience adds it later, until it chooses to rejoin on its preferences page.
 */
import { describe, expect, it } from 'vitest';
import { subscriptionLinks } from '#shared/sending/subscription-links.ts';
import { request } from '../support/api.ts';
import { createAudience } from '../support/arrange.ts';
import { createSender, storedEmails, uniqueAddresses, type Sender, type StoredEmail } from '../sending/support.ts';
import { createForm, submit } from '../forms/support.ts';
import { createBroadcast, drainBroadcastQueue, expectOneEach, readBroadcast, sendWith } from './support.ts';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/** The path of one of the address's signed pages. */
async function pageOf(sender: Sender, address: string, page: 'unsubscribeUrl' | 'preferencesUrl'): Promise<string> {
  return new URL((await subscriptionLinks(sender.accountId, address))[page]).pathname;
}

/** A broadcast to the audience, sent and run to its end: the messages it handed to SES. */
async function broadcastTo(sender: Sender, audienceId: string): Promise<StoredEmail[]> {
  const before = new Set((await storedEmails(sender.domain)).map((email) => email.messageId));
  const broadcast = await createBroadcast(sender, { audienceId, content: '<p>News</p>' });
  await sendWith(sender.key, broadcast.id);
  await drainBroadcastQueue();
  expect((await readBroadcast(sender.key, broadcast.id)).status).toBe('sent');
  return (await storedEmails(sender.domain)).filter((email) => !before.has(email.messageId));
}

describe('an address that left all mail of the account', { timeout: 60_000 }, () => {
  it('receives no broadcast of an audience a form adds it to later, until it rejoins on its preferences page', async () => {
    const sender = await createSender();
    const [contact, stranger, newcomer] = uniqueAddresses('contact', 'stranger', 'newcomer');
    // A contact of one audience leaves all mail on its preferences page; an address that is no contact unsubscribes by its link.
    const first = await createAudience(sender.key, 'First');
    expect((await request('POST', '/api/contacts', { key: sender.key, body: { audienceId: first, email: contact } })).status).toBe(201);
    expect((await request('POST', await pageOf(sender, contact, 'preferencesUrl'), { rawBody: 'status=unsubscribed', headers: FORM })).status).toBe(200);
    expect((await request('POST', await pageOf(sender, stranger, 'unsubscribeUrl'), { rawBody: 'List-Unsubscribe=One-Click', headers: FORM })).status).toBe(
      200,
    );
    // Later a form without double opt-in adds both, and a newcomer, to another audience.
    const later = await createAudience(sender.key, 'Later');
    const form = await createForm(sender.key, { audienceId: later });
    for (const email of [contact, stranger, newcomer]) expect((await submit(form.slug, { email })).status).toBe(200);

    expectOneEach(await broadcastTo(sender, later), [newcomer]);

    // The contact rejoins the audience it had left, with that audience's Resubscribe button: it chose this sender's mail again.
    const rejoined = await request('POST', await pageOf(sender, contact, 'preferencesUrl'), {
      rawBody: `audienceId=${first}&status=subscribed`,
      headers: FORM,
    });
    expect(rejoined.status).toBe(200);
    expectOneEach(await broadcastTo(sender, later), [contact, newcomer]);
  });
});
