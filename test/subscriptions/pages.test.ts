import { describe, expect, it } from 'vitest';
import { createTestAccount } from '../support/accounts.ts';
import { request } from '../support/api.ts';
import { createAudience, deleteAudience, getAudienceStats } from '#shared/audiences/service.ts';
import { createContact, getContact, updateContact } from '#shared/contacts/service.ts';
import type { ContactStatus } from '#shared/audiences/contact-status.ts';
import { subscriptionLinks } from '#shared/sending/subscription-links.ts';

const now = new Date();
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/** An account with the address in one audience per status given, named after the status. */
async function recipientIn(statuses: ContactStatus[], email = 'ana@example.com') {
  const { accountId, key } = await createTestAccount();
  const audiences: Record<string, { audienceId: string; contactId: string }> = {};
  for (const status of statuses) {
    const audience = await createAudience(accountId, { name: `List ${status}` }, now);
    const contact = await createContact(accountId, { email, audienceId: audience.id, status: status === 'complained' ? 'subscribed' : status }, now);
    if (status === 'complained') await updateContact(accountId, contact.id, { status }, now);
    audiences[status] = { audienceId: audience.id, contactId: contact.id };
  }
  const links = await subscriptionLinks(accountId, email);
  return { accountId, key, audiences, unsubscribe: new URL(links.unsubscribeUrl).pathname, preferences: new URL(links.preferencesUrl).pathname };
}

async function statusOf(accountId: string, contactId: string): Promise<ContactStatus> {
  return (await getContact(accountId, contactId)).status;
}

/** A valid token with one character of its payload changed. */
function tampered(path: string): string {
  const at = path.lastIndexOf('/') + 3;
  return path.slice(0, at) + (path[at] === 'A' ? 'B' : 'A') + path.slice(at + 1);
}

describe('unsubscribe page', () => {
  it('asks before changing anything, on a self-contained page that leaks nothing', async () => {
    const { accountId, audiences, unsubscribe } = await recipientIn(['subscribed']);

    const page = await request('GET', unsubscribe);

    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.body).toContain('<html lang="en">');
    expect(page.body).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(page.body).toContain('ana@example.com');
    expect(page.body).toMatch(/<form method="post">\s*<button type="submit">Unsubscribe<\/button>/);
    expect(page.body).not.toMatch(/<script|<link|src=/i);
    expect(await statusOf(accountId, audiences.subscribed!.contactId)).toBe('subscribed');
  });

  it('unsubscribes the address in every audience on the confirmation POST, and the stats follow', async () => {
    const { accountId, audiences, unsubscribe } = await recipientIn(['subscribed', 'pending', 'bounced', 'complained', 'unsubscribed']);

    const done = await request('POST', unsubscribe, { rawBody: '', headers: FORM });

    expect(done.status).toBe(200);
    expect(done.body).toContain('You are unsubscribed');
    expect(await statusOf(accountId, audiences.subscribed!.contactId)).toBe('unsubscribed');
    expect(await statusOf(accountId, audiences.pending!.contactId)).toBe('unsubscribed');
    expect(await statusOf(accountId, audiences.bounced!.contactId)).toBe('bounced');
    expect(await statusOf(accountId, audiences.complained!.contactId)).toBe('complained');
    expect(await getAudienceStats(accountId, audiences.subscribed!.audienceId, now)).toMatchObject({ total: 1, subscribed: 0, unsubscribed: 1 });
    expect(await getAudienceStats(accountId, audiences.pending!.audienceId, now)).toMatchObject({ total: 1, pending: 0, unsubscribed: 1 });
    expect(await getAudienceStats(accountId, audiences.bounced!.audienceId, now)).toMatchObject({ total: 1, bounced: 1, unsubscribed: 0 });
  });

  it('takes RFC 8058 one-click POSTs, form-urlencoded or multipart, and a second POST changes nothing more', async () => {
    const first = await recipientIn(['subscribed']);
    const second = await recipientIn(['subscribed']);
    const boundary = 'postlane-test-boundary';
    const multipart = `--${boundary}\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--${boundary}--\r\n`;

    const urlencoded = await request('POST', first.unsubscribe, { rawBody: 'List-Unsubscribe=One-Click', headers: FORM });
    const again = await request('POST', first.unsubscribe, { rawBody: 'List-Unsubscribe=One-Click', headers: FORM });
    const viaMultipart = await request('POST', second.unsubscribe, {
      rawBody: multipart,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    });

    expect([urlencoded.status, again.status, viaMultipart.status]).toEqual([200, 200, 200]);
    expect(await statusOf(first.accountId, first.audiences.subscribed!.contactId)).toBe('unsubscribed');
    expect(await getAudienceStats(first.accountId, first.audiences.subscribed!.audienceId, now)).toMatchObject({ total: 1, subscribed: 0, unsubscribed: 1 });
    expect(await statusOf(second.accountId, second.audiences.subscribed!.contactId)).toBe('unsubscribed');
  });

  it('unsubscribes in audiences deleted since, whose contacts remain', async () => {
    const { accountId, audiences, unsubscribe } = await recipientIn(['subscribed']);
    await deleteAudience(accountId, audiences.subscribed!.audienceId, now);

    await request('POST', unsubscribe, { rawBody: 'List-Unsubscribe=One-Click', headers: FORM });

    expect(await statusOf(accountId, audiences.subscribed!.contactId)).toBe('unsubscribed');
  });

  it('answers a tampered, truncated or made-up link with a 400 page and changes nothing', async () => {
    const { accountId, audiences, unsubscribe } = await recipientIn(['subscribed']);

    const attempts = await Promise.all([
      request('POST', tampered(unsubscribe), { rawBody: 'List-Unsubscribe=One-Click', headers: FORM }),
      request('POST', unsubscribe.slice(0, -4), { rawBody: 'List-Unsubscribe=One-Click', headers: FORM }),
      request('POST', '/unsubscribe/anything', { rawBody: 'List-Unsubscribe=One-Click', headers: FORM }),
      request('GET', tampered(unsubscribe)),
      request('GET', '/unsubscribe/%E0%A4%A'),
    ]);

    for (const attempt of attempts.slice(0, 4)) {
      expect(attempt.status).toBe(400);
      expect(attempt.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(attempt.body).toContain('This link is not valid');
    }
    expect(attempts[4]!.status).toBeLessThan(500);
    expect(await statusOf(accountId, audiences.subscribed!.contactId)).toBe('subscribed');
  });

  it('acts only in the account that signed the link', async () => {
    const signer = await recipientIn(['subscribed']);
    const bystander = await recipientIn(['subscribed']);

    await request('POST', signer.unsubscribe, { rawBody: 'List-Unsubscribe=One-Click', headers: FORM });

    expect(await statusOf(signer.accountId, signer.audiences.subscribed!.contactId)).toBe('unsubscribed');
    expect(await statusOf(bystander.accountId, bystander.audiences.subscribed!.contactId)).toBe('subscribed');
  });

  it('acts only on the address of the link', async () => {
    const { accountId, unsubscribe } = await recipientIn(['subscribed']);
    const audience = await createAudience(accountId, { name: 'Other' }, now);
    const other = await createContact(accountId, { email: 'bob@example.com', audienceId: audience.id }, now);

    await request('POST', unsubscribe, { rawBody: 'List-Unsubscribe=One-Click', headers: FORM });

    expect(await statusOf(accountId, other.id)).toBe('subscribed');
  });
});

describe('preferences page', () => {
  it("lists the address's audiences by name with their status and what can be changed", async () => {
    const { preferences } = await recipientIn(['subscribed', 'unsubscribed', 'bounced', 'complained', 'pending']);

    const page = await request('GET', preferences);

    expect(page.status).toBe(200);
    const items = [...page.body.matchAll(/<li>(.*?)<\/li>/gs)].map(([, item]) => item as string);
    expect(items.map((item) => /<strong>(.*?)<\/strong>/.exec(item)![1])).toEqual([
      'List bounced',
      'List complained',
      'List pending',
      'List subscribed',
      'List unsubscribed',
    ]);
    const buttonOf = (item: string) => /<button[^>]*name="status" value="(\w+)"/.exec(item)?.[1];
    expect(items.map(buttonOf)).toEqual([undefined, undefined, 'unsubscribed', 'unsubscribed', 'subscribed']);
    expect(items[0]).toContain('Paused: messages to this address bounced');
    expect(items[4]).toContain('Resubscribe<span class="visually-hidden"> to List unsubscribed</span>');
    expect(page.body).toContain('Unsubscribe from all');
  });

  it('escapes everything it prints', async () => {
    const { accountId, preferences } = await recipientIn([]);
    const audience = await createAudience(accountId, { name: '<script>alert(1)</script> & "friends"' }, now);
    await createContact(accountId, { email: 'ana@example.com', audienceId: audience.id }, now);

    const page = await request('GET', preferences);

    expect(page.body).not.toContain('<script>');
    expect(page.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;friends&quot;');
  });

  it('does not list audiences deleted since, and says when there is nothing', async () => {
    const { accountId, audiences, preferences } = await recipientIn(['subscribed']);
    await deleteAudience(accountId, audiences.subscribed!.audienceId, now);

    const page = await request('GET', preferences);

    expect(page.status).toBe(200);
    expect(page.body).not.toContain('List subscribed');
    expect(page.body).toContain('This address is on no mailing list.');
  });

  it('leaves and rejoins one audience at a time, keeping the stats exact', async () => {
    const { accountId, audiences, preferences } = await recipientIn(['subscribed', 'pending']);
    const target = audiences.subscribed!;

    const left = await request('POST', preferences, { rawBody: `audienceId=${target.audienceId}&status=unsubscribed`, headers: FORM });

    expect(left.status).toBe(200);
    expect(left.body).toContain('Your preferences are saved.');
    expect(await statusOf(accountId, target.contactId)).toBe('unsubscribed');
    expect(await statusOf(accountId, audiences.pending!.contactId)).toBe('pending');
    expect(left.body).toMatch(/List subscribed<\/strong><br><span class="status">Unsubscribed<\/span>/);

    const rejoined = await request('POST', preferences, { body: { audienceId: target.audienceId, status: 'subscribed' } });

    expect(rejoined.status).toBe(200);
    expect(await statusOf(accountId, target.contactId)).toBe('subscribed');
    expect(await getAudienceStats(accountId, target.audienceId, now)).toMatchObject({ total: 1, subscribed: 1, unsubscribed: 0 });
  });

  it('leaves every audience at once with "Unsubscribe from all"', async () => {
    const { accountId, audiences, preferences } = await recipientIn(['subscribed', 'pending', 'bounced']);

    const saved = await request('POST', preferences, { rawBody: 'status=unsubscribed', headers: FORM });

    expect(saved.status).toBe(200);
    expect(await statusOf(accountId, audiences.subscribed!.contactId)).toBe('unsubscribed');
    expect(await statusOf(accountId, audiences.pending!.contactId)).toBe('unsubscribed');
    expect(await statusOf(accountId, audiences.bounced!.contactId)).toBe('bounced');
  });

  it('never lets the contact clear a bounce or a complaint, nor confirm a pending subscription', async () => {
    const { accountId, audiences, preferences } = await recipientIn(['bounced', 'complained', 'pending']);

    const attempts = await Promise.all(
      (['bounced', 'complained', 'pending'] as const).map((status) =>
        request('POST', preferences, { rawBody: `audienceId=${audiences[status]!.audienceId}&status=subscribed`, headers: FORM }),
      ),
    );

    for (const attempt of attempts) {
      expect(attempt.status).toBe(409);
      expect(attempt.body).toContain('That subscription cannot be changed from this page. Nothing was changed.');
    }
    expect(await statusOf(accountId, audiences.bounced!.contactId)).toBe('bounced');
    expect(await statusOf(accountId, audiences.complained!.contactId)).toBe('complained');
    expect(await statusOf(accountId, audiences.pending!.contactId)).toBe('pending');
  });

  it('refuses an audience the address is not in, and a repeated choice is harmless', async () => {
    const { accountId, audiences, preferences } = await recipientIn(['unsubscribed']);
    const elsewhere = await createAudience(accountId, { name: 'Not mine' }, now);
    const stranger = await createContact(accountId, { email: 'bob@example.com', audienceId: elsewhere.id, status: 'unsubscribed' }, now);

    const foreign = await request('POST', preferences, { rawBody: `audienceId=${elsewhere.id}&status=subscribed`, headers: FORM });
    const repeated = await request('POST', preferences, { rawBody: `audienceId=${audiences.unsubscribed!.audienceId}&status=unsubscribed`, headers: FORM });

    expect(foreign.status).toBe(409);
    expect(await statusOf(accountId, stranger.id)).toBe('unsubscribed');
    expect(repeated.status).toBe(200);
    expect(await statusOf(accountId, audiences.unsubscribed!.contactId)).toBe('unsubscribed');
  });

  it('answers an invalid link with the 400 page, and a malformed form with the error envelope', async () => {
    const { accountId, audiences, preferences } = await recipientIn(['subscribed']);

    const invalid = await request('POST', tampered(preferences), {
      rawBody: `audienceId=${audiences.subscribed!.audienceId}&status=unsubscribed`,
      headers: FORM,
    });
    const invalidGet = await request('GET', tampered(preferences));
    const badStatus = await request('POST', preferences, { rawBody: 'status=bounced', headers: FORM });

    expect(invalid.status).toBe(400);
    expect(invalid.body).toContain('This link is not valid');
    expect(invalidGet.status).toBe(400);
    expect(badStatus.status).toBe(422);
    expect(badStatus.body).toMatchObject({ success: false, error: 'VALIDATION_ERROR', field: 'status' });
    expect(await statusOf(accountId, audiences.subscribed!.contactId)).toBe('subscribed');
  });
});
