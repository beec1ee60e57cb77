/**
 * Unsubscribing always records something (docs/api.md, "Unsubscribe and preferences"):
 * an address that is no contact of the account (a cc, a bcc, a one-off
 * recipient) goes on the account's suppression list, which general sends
 * honour and OTP and transactional sends do not.
 */
import { describe, expect, it } from 'vitest';
import { putSuppression } from '#shared/sending/suppression-store.ts';
import { subscriptionLinks } from '#shared/sending/subscription-links.ts';
import { request } from '../support/api.ts';
import { createSender, storedEmails, suppressedFailure, uniqueAddress, type Sender } from '../sending/support.ts';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/** A sender, and the signed link paths of an address that is none of its contacts. */
async function nonContact() {
  const sender = await createSender();
  const address = uniqueAddress('stranger');
  const links = await subscriptionLinks(sender.accountId, address);
  return { sender, address, unsubscribe: new URL(links.unsubscribeUrl).pathname, preferences: new URL(links.preferencesUrl).pathname };
}

function generalSend(sender: Sender, to: string, subject: string) {
  return request('POST', '/api/email/send', { key: sender.key, body: { from: sender.from, recipients: [to], subject, content: '<p>News</p>' } });
}

/** The answers of the three kinds of send to one address, and what reached it. */
async function sendsTo(sender: Sender, to: string) {
  const email = await generalSend(sender, to, 'General');
  const otp = await request('POST', '/api/otp/send', { key: sender.key, body: { from: sender.from, to, code: '123456' } });
  const transactional = await request('POST', '/api/transactional/send', {
    key: sender.key,
    body: { from: sender.from, to, subject: 'Receipt', content: '<p>Paid</p>' },
  });
  const delivered = (await storedEmails(sender.domain)).filter((stored) => stored.destination.to.includes(to)).map((stored) => stored.subject);
  return { email, otp, transactional, delivered };
}

function expectRefusedForGeneralSendsOnly(sends: Awaited<ReturnType<typeof sendsTo>>, to: string): void {
  expect(sends.email.status).toBe(422);
  expect(sends.email.body).toMatchObject({
    error: 'ALL_RECIPIENTS_FAILED',
    failedEmails: [suppressedFailure(to)],
  });
  expect([sends.otp.status, sends.transactional.status]).toEqual([200, 200]);
  expect(sends.delivered.slice(-2)).toEqual(['Postlane - Seu código de verificação', 'Receipt']);
  expect(sends.delivered).not.toContain('General');
}

describe('unsubscribing an address that is no contact', () => {
  it('by one-click POST (RFC 8058) puts it on the suppression list: general sends refuse it, OTP and transactional still send', async () => {
    const { sender, address, unsubscribe } = await nonContact();
    expect((await generalSend(sender, address, 'Before')).status).toBe(200);

    const done = await request('POST', unsubscribe, { rawBody: 'List-Unsubscribe=One-Click', headers: FORM });

    expect(done.status).toBe(200);
    expect(done.body).toContain('You are unsubscribed');
    const sends = await sendsTo(sender, address);
    expectRefusedForGeneralSendsOnly(sends, address);
  });

  it("by the page's confirmation button does the same", async () => {
    const { sender, address, unsubscribe } = await nonContact();

    const page = await request('GET', unsubscribe);
    const done = await request('POST', unsubscribe, { rawBody: '', headers: FORM });

    expect([page.status, done.status]).toEqual([200, 200]);
    expectRefusedForGeneralSendsOnly(await sendsTo(sender, address), address);
  });

  it('never turns a bounce into an unsubscribe, which OTP and transactional sends would ignore', async () => {
    const { sender, address, unsubscribe } = await nonContact();
    await putSuppression(sender.accountId, address, 'bounced', new Date());

    await request('POST', unsubscribe, { rawBody: 'List-Unsubscribe=One-Click', headers: FORM });

    const otp = await request('POST', '/api/otp/send', { key: sender.key, body: { from: sender.from, to: address, code: '123456' } });
    expect(otp.status).toBe(422);
    expect(otp.body).toMatchObject({ error: 'RECIPIENT_SUPPRESSED' });
  });

  it('gives way to a later bounce, which OTP and transactional sends honour', async () => {
    const { sender, address, unsubscribe } = await nonContact();
    await request('POST', unsubscribe, { rawBody: 'List-Unsubscribe=One-Click', headers: FORM });

    await putSuppression(sender.accountId, address, 'bounced', new Date());

    const transactional = await request('POST', '/api/transactional/send', {
      key: sender.key,
      body: { from: sender.from, to: address, subject: 'Receipt', content: '<p>Paid</p>' },
    });
    expect(transactional.body).toMatchObject({ error: 'RECIPIENT_SUPPRESSED' });
  });

  it('acts in the account that signed the link only', async () => {
    const { address, unsubscribe } = await nonContact();
    const other = await createSender();

    await request('POST', unsubscribe, { rawBody: 'List-Unsubscribe=One-Click', headers: FORM });

    expect((await generalSend(other, address, 'Elsewhere')).status).toBe(200);
  });
});

describe('the preferences page of an address that is no contact', () => {
  /** The page's list items: name, status and the choice its button makes. */
  function itemsOf(page: string) {
    return [...page.matchAll(/<li>(.*?)<\/li>/gs)].map(([, item]) => ({
      name: /<strong>(.*?)<\/strong>/.exec(item!)![1],
      status: /<span class="status">(.*?)<\/span>/.exec(item!)![1],
      button: /<button[^>]*name="status" value="(\w+)"/.exec(item!)?.[1],
    }));
  }

  it("shows its standing with all of the sender's mail, lets it leave and come back, and sends follow", async () => {
    const { sender, address, preferences } = await nonContact();

    const first = await request('GET', preferences);
    const left = await request('POST', preferences, { rawBody: 'status=unsubscribed', headers: FORM });
    const refusedWhileLeft = await generalSend(sender, address, 'While left');
    const back = await request('POST', preferences, { rawBody: 'status=subscribed', headers: FORM });
    const sentAfter = await generalSend(sender, address, 'After');

    expect(first.status).toBe(200);
    expect(itemsOf(first.body)).toEqual([{ name: 'All emails from this sender', status: 'Subscribed', button: 'unsubscribed' }]);
    expect(left.status).toBe(200);
    expect(itemsOf(left.body)).toEqual([{ name: 'All emails from this sender', status: 'Unsubscribed', button: 'subscribed' }]);
    expect(refusedWhileLeft.body).toMatchObject({ error: 'ALL_RECIPIENTS_FAILED', failedEmails: [{ error: 'RECIPIENT_SUPPRESSED' }] });
    expect(itemsOf(back.body)).toEqual([{ name: 'All emails from this sender', status: 'Subscribed', button: 'unsubscribed' }]);
    expect(sentAfter.status).toBe(200);
    expect((await storedEmails(sender.domain)).map((email) => email.subject)).toEqual(['After']);
  });

  it('shows a bounce or complaint with no way to clear it', async () => {
    const { sender, address, preferences } = await nonContact();
    await putSuppression(sender.accountId, address, 'complained', new Date());

    const page = await request('GET', preferences);
    const attempt = await request('POST', preferences, { rawBody: 'status=subscribed', headers: FORM });

    expect(itemsOf(page.body)).toEqual([{ name: 'All emails from this sender', status: 'Paused: a message was reported as spam', button: undefined }]);
    expect(itemsOf(attempt.body)[0]!.status).toBe('Paused: a message was reported as spam');
    expect((await generalSend(sender, address, 'Still refused')).body).toMatchObject({
      failedEmails: [suppressedFailure(address)],
    });
  });
});
