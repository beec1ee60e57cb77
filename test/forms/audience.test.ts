import { describe, expect, it, vi } from 'vitest';
import { request } from '../support/api.ts';
import { createSender, storedEmails, uniqueAddress, type Sender } from '../sending/support.ts';
import { subscriptionLinks } from '#shared/sending/subscription-links.ts';
import { localVerifier, verifyDomain } from '#shared/domains/verification.ts';
import { randomBase62 } from '#shared/platform/ids.ts';
import { createTestAccount } from '../support/accounts.ts';
import { confirmationLink, createForm, formBody, submit } from './support.ts';

async function audienceOf(sender: Sender, name = 'Leads'): Promise<string> {
  return (await request('POST', '/api/audiences', { key: sender.key, body: { name } })).body.data.id;
}

async function contactIn(sender: Sender, audienceId: string, email: string) {
  return request('GET', `/api/contacts/email/${encodeURIComponent(email)}?audienceId=${audienceId}`, { key: sender.key });
}

async function statsOf(sender: Sender, audienceId: string) {
  return (await request('GET', `/api/audiences/${audienceId}/stats`, { key: sender.key })).body.data;
}

const CONTACT_FIELDS = [
  { id: 'email', type: 'email', label: 'Email' },
  { id: 'firstName', type: 'text', label: 'First name' },
  { id: 'lastName', type: 'text', label: 'Last name' },
  { id: 'mobile', type: 'phone', label: 'Mobile' },
];

describe('forms linked to an audience', () => {
  it('adds the submitter as a subscribed contact with the details the form asks for', async () => {
    const sender = await createSender();
    const audienceId = await audienceOf(sender);
    const form = await createForm(sender.key, { fields: CONTACT_FIELDS, audienceId });
    const email = uniqueAddress('ann');

    const response = await submit(form.slug, { email: email.toUpperCase(), firstName: 'Ann', lastName: 'Lee', mobile: '+44 20 7946 0000' });

    expect(response.status).toBe(200);
    const contact = await contactIn(sender, audienceId, email);
    expect(contact.body.data).toMatchObject({ email, audienceId, firstName: 'Ann', lastName: 'Lee', phone: '+44 20 7946 0000', status: 'subscribed' });
    expect(await statsOf(sender, audienceId)).toMatchObject({ total: 1, subscribed: 1, pending: 0 });
  });

  it.each(['subscribed', 'pending', 'unsubscribed', 'bounced', 'complained'])(
    'never changes an existing %s contact: details, custom fields, tags and status stay as they were',
    async (status) => {
      const sender = await createSender();
      const audienceId = await audienceOf(sender);
      const plain = await createForm(sender.key, { fields: CONTACT_FIELDS, audienceId });
      const optIn = await createForm(sender.key, { fields: CONTACT_FIELDS, audienceId, settings: { doubleOptIn: true } });
      const email = uniqueAddress('existing');
      const made = await request('POST', '/api/contacts', {
        key: sender.key,
        body: {
          email,
          audienceId,
          firstName: 'Ann',
          lastName: 'Lee',
          phone: '+44 20 7946 0000',
          customFields: { plan: 'pro' },
          tags: ['vip'],
          status: status === 'complained' ? 'subscribed' : status,
        },
      });
      if (status === 'complained') await request('PATCH', `/api/contacts/${made.body.data.id}`, { key: sender.key, body: { status: 'complained' } });
      const before = (await contactIn(sender, audienceId, email)).body.data;
      const stats = await statsOf(sender, audienceId);

      const answers = [
        await submit(plain.id, { email: email.toUpperCase(), firstName: 'Mallory', lastName: 'Other', mobile: '+1 555 010 0000' }),
        await submit(optIn.id, { email, firstName: 'Mallory' }),
      ];

      expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
      expect((await contactIn(sender, audienceId, email)).body.data).toEqual(before);
      expect(before).toMatchObject({ firstName: 'Ann', lastName: 'Lee', customFields: { plan: 'pro' }, tags: ['vip'], status });
      expect(await statsOf(sender, audienceId)).toEqual(stats);
      // Only a contact still awaiting confirmation is asked (again) to confirm.
      const asked = (await storedEmails(sender.domain)).filter((stored) => stored.destination.to.includes(email));
      expect(asked).toHaveLength(status === 'pending' ? 1 : 0);
    },
  );

  it('keeps the audience counts exact under concurrent submissions', async () => {
    const sender = await createSender();
    const audienceId = await audienceOf(sender);
    const form = await createForm(sender.key, { fields: CONTACT_FIELDS, audienceId });
    const repeated = uniqueAddress('repeated');
    const distinct = Array.from({ length: 8 }, (_, index) => uniqueAddress(`person${index}`));

    const responses = await Promise.all([...distinct, repeated, repeated, repeated, repeated].map((email) => submit(form.id, { email })));

    expect(responses.map((response) => response.status)).toEqual(Array(12).fill(200));
    expect(await statsOf(sender, audienceId)).toMatchObject({ total: 9, subscribed: 9 });
    const listed = (await request('GET', `/api/contacts?audienceId=${audienceId}&limit=100`, { key: sender.key })).body;
    expect(listed.pagination.total).toBe(9);
    expect(new Set(listed.contacts.map((contact: { email: string }) => contact.email))).toEqual(new Set([...distinct, repeated]));
  });

  it('adds nobody without an email value, and still takes submissions once the audience is gone', async () => {
    const sender = await createSender();
    const audienceId = await audienceOf(sender);
    const form = await createForm(sender.key, { fields: CONTACT_FIELDS, audienceId });

    const withoutEmail = await submit(form.id, { firstName: 'Anonymous' });
    await request('DELETE', `/api/audiences/${audienceId}`, { key: sender.key });
    const afterDeletion = await submit(form.id, { email: uniqueAddress() });

    expect(withoutEmail.status).toBe(200);
    expect(afterDeletion.status).toBe(200);
    expect((await request('GET', `/api/contacts?audienceId=${audienceId}`, { key: sender.key })).body.pagination.total).toBe(0);
    expect((await request('GET', `/api/forms/${form.id}/submissions`, { key: sender.key })).body.pagination.total).toBe(2);
  });
});

/** The lines of a confirmation link's signed payload: account, issue time, audience, form, address. */
function claimLines(link: string): string[] {
  return Buffer.from(link.slice('/confirm/'.length).split('.')[0]!, 'base64url').toString('utf8').split('\n');
}

/** The same link with one line of its signed payload replaced, the mac kept: what someone bending a link would try. */
function withClaim(link: string, line: number, value: string): string {
  const lines = claimLines(link);
  lines[line] = value;
  return `/confirm/${Buffer.from(lines.join('\n'), 'utf8').toString('base64url')}.${link.split('.')[1]}`;
}

const AUDIENCE_LINE = 2;
const FORM_LINE = 3;

const confirmationsTo = async (sender: Sender, email: string) =>
  (await storedEmails(sender.domain)).filter((stored) => stored.destination.to.includes(email) && stored.subject === 'Please confirm your subscription');

describe('double opt-in', () => {
  it("keeps a new contact pending until the button of the signed link's page is pressed; opening the link changes nothing", async () => {
    const sender = await createSender();
    const audienceId = await audienceOf(sender);
    const form = await createForm(sender.key, {
      title: 'Weekly <news>',
      fields: CONTACT_FIELDS,
      audienceId,
      settings: { doubleOptIn: true, from: `Acme <${sender.from}>` },
    });
    const email = uniqueAddress('optin');

    await submit(form.slug, { email, firstName: 'Ann' });

    expect((await contactIn(sender, audienceId, email)).body.data.status).toBe('pending');
    expect(await statsOf(sender, audienceId)).toMatchObject({ total: 1, pending: 1, subscribed: 0 });
    const [sent] = await confirmationsTo(sender, email);
    expect(sent).toMatchObject({ from: `Acme <${sender.from}>`, subject: 'Please confirm your subscription' });
    expect(sent!.body.html).toContain('through the form “Weekly &lt;news&gt;”');
    const link = await confirmationLink(sender, email);
    expect(link).toMatch(/^\/confirm\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);

    const opened = await request('GET', link);
    const openedAgain = await request('GET', link);

    expect(opened.status).toBe(200);
    expect(opened.body).toContain('<h1>Confirm your subscription</h1>');
    expect(opened.body).toContain(email);
    // A plain form post back to the link itself: no action, no script.
    expect(opened.body).toMatch(/<form method="post">\s*<button type="submit">Confirm subscription<\/button>\s*<\/form>/);
    expect(opened.body).not.toContain('<script');
    expect(opened.headers.get('content-security-policy')).toContain("form-action 'self'");
    expect(openedAgain.body).toEqual(opened.body);
    expect((await contactIn(sender, audienceId, email)).body.data.status).toBe('pending');
    expect(await statsOf(sender, audienceId)).toMatchObject({ total: 1, pending: 1, subscribed: 0 });

    // What a browser sends for that form: an empty URL-encoded body.
    const confirmed = await request('POST', link, { rawBody: '', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    const again = await request('POST', link);

    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toContain('<h1>You are subscribed</h1>');
    expect((await contactIn(sender, audienceId, email)).body.data.status).toBe('subscribed');
    expect(await statsOf(sender, audienceId)).toMatchObject({ total: 1, pending: 0, subscribed: 1 });
    expect(again.status).toBe(200);
    expect(again.body).toContain('<h1>You are already subscribed</h1>');
  });

  it('refuses a tampered, truncated or foreign link, on GET and POST, and changes nothing', async () => {
    const sender = await createSender();
    const audienceId = await audienceOf(sender);
    const form = await createForm(sender.key, { fields: CONTACT_FIELDS, audienceId, settings: { doubleOptIn: true, from: sender.from } });
    const email = uniqueAddress('tamper');
    await submit(form.id, { email });
    const link = await confirmationLink(sender, email);
    const tampered = `${link.slice(0, -3)}${link.endsWith('AAA') ? 'BBB' : 'AAA'}`;
    // The address's unsubscribe token, signed with the same key for another use, in the old link's shape.
    const unsubscribeToken = new URL((await subscriptionLinks(sender.accountId, email)).unsubscribeUrl).pathname.split('/').pop();

    for (const bad of [tampered, link.slice(0, -10), `/confirm/${unsubscribeToken}?audienceId=${audienceId}`, '/confirm/garbage']) {
      for (const method of ['GET', 'POST']) {
        const response = await request(method, bad);
        expect(response.status, `${method} ${bad}`).toBe(400);
        expect(response.body).toContain('<h1>This link is not valid</h1>');
      }
    }
    expect((await contactIn(sender, audienceId, email)).body.data.status).toBe('pending');
  });

  it('signs the audience and the form: a link bent to another audience or form of the account confirms nothing', async () => {
    const sender = await createSender();
    const [first, second] = [await audienceOf(sender, 'First'), await audienceOf(sender, 'Second')];
    const formOfFirst = await createForm(sender.key, { fields: CONTACT_FIELDS, audienceId: first, settings: { doubleOptIn: true } });
    const formOfSecond = await createForm(sender.key, { fields: CONTACT_FIELDS, audienceId: second, settings: { doubleOptIn: true } });
    const email = uniqueAddress('bent');
    await submit(formOfFirst.id, { email });
    await submit(formOfSecond.id, { email });
    const links = (await confirmationsTo(sender, email)).map((stored) => new URL(/href="([^"]*\/confirm\/[^"]*)"/.exec(stored.body.html!)![1]!).pathname);
    expect(links).toHaveLength(2);
    const [linkOfFirst] = links as [string, string];
    expect(claimLines(linkOfFirst).slice(AUDIENCE_LINE, FORM_LINE + 1)).toEqual([first, formOfFirst.id]);

    for (const bent of [withClaim(linkOfFirst, AUDIENCE_LINE, second), withClaim(linkOfFirst, FORM_LINE, formOfSecond.id)]) {
      const response = await request('POST', bent);
      expect(response.status, bent).toBe(400);
      expect(response.body).toContain('<h1>This link is not valid</h1>');
    }
    expect((await contactIn(sender, first, email)).body.data.status).toBe('pending');
    expect((await contactIn(sender, second, email)).body.data.status).toBe('pending');

    expect((await request('POST', linkOfFirst)).status).toBe(200);
    expect((await contactIn(sender, first, email)).body.data.status).toBe('subscribed');
    expect((await contactIn(sender, second, email)).body.data.status).toBe('pending');
  });
});

describe('one confirmation email per address and form per hour', () => {
  async function optInForm(sender: Sender) {
    const audienceId = await audienceOf(sender);
    return createForm(sender.key, { fields: CONTACT_FIELDS, audienceId, settings: { doubleOptIn: true } });
  }

  /** The live quota left, as a test key's send reports it without using any. */
  async function emailsRemaining(sender: Sender): Promise<number> {
    const sent = await request('POST', '/api/email/send', {
      key: sender.testKey,
      body: { from: sender.from, recipients: [uniqueAddress()], subject: 'Quota', content: '<p>Quota</p>' },
    });
    return sent.body.emailsRemaining;
  }

  it('sends one for ten submissions of an address in a row, all answered 200, and charges the quota once', async () => {
    const sender = await createSender({ quota: 100 });
    const form = await optInForm(sender);
    const email = uniqueAddress('tenfold');

    const answers = [];
    for (let attempt = 0; attempt < 10; attempt++) answers.push(await submit(form.id, { email }));

    expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(200));
    expect(await confirmationsTo(sender, email)).toHaveLength(1);
    expect(await emailsRemaining(sender)).toBe(99);
  });

  it('sends one for ten submissions racing in parallel', async () => {
    const sender = await createSender({ quota: 100 });
    const form = await optInForm(sender);
    const email = uniqueAddress('racing');

    const answers = await Promise.all(Array.from({ length: 10 }, (_, index) => submit(index % 2 === 0 ? form.id : form.slug, { email })));

    expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(200));
    expect(await confirmationsTo(sender, email)).toHaveLength(1);
    expect(await emailsRemaining(sender)).toBe(99);
  });

  it('counts per form: a second form asks the same address once more, and other addresses are not held back', async () => {
    const sender = await createSender();
    const [first, second] = [await optInForm(sender), await optInForm(sender)];
    const email = uniqueAddress('twoforms');
    const other = uniqueAddress('other');

    for (const form of [first, second, first, second]) await submit(form.id, { email });
    await submit(first.id, { email: other });

    const confirmations = await confirmationsTo(sender, email);
    expect(confirmations).toHaveLength(2);
    expect(await confirmationsTo(sender, other)).toHaveLength(1);
  });

  it('asks again once the hour is over', async () => {
    const sender = await createSender();
    const form = await optInForm(sender);
    const email = uniqueAddress('later');
    const start = Date.now();

    vi.useFakeTimers({ now: start, toFake: ['Date'] });
    try {
      await submit(form.id, { email });
      vi.setSystemTime(start + 59 * 60_000);
      await submit(form.id, { email });
      vi.setSystemTime(start + 61 * 60_000);
      await submit(form.id, { email });
    } finally {
      vi.useRealTimers();
    }

    expect(await confirmationsTo(sender, email)).toHaveLength(2);
  });
});

describe('submission notifications', () => {
  it("emails notifyEmail each submission from the form's sender, values escaped and files attached", async () => {
    const sender = await createSender();
    const owner = uniqueAddress('owner');
    const form = await createForm(sender.key, {
      title: 'Contact us',
      fields: [
        { id: 'email', type: 'email', label: 'Your email' },
        { id: 'message', type: 'textarea', label: 'Message <required>' },
        { id: 'topics', type: 'checkbox', label: 'Topics', options: ['Sales', 'Support'] },
        { id: 'file', type: 'file', label: 'Attachment' },
      ],
      settings: { notifyEmail: owner, from: `Forms <${sender.from}>` },
    });
    const submitter = uniqueAddress('submitter');

    const response = await submit(form.id, {
      email: submitter,
      message: '<script>alert(1)</script> {{unsubscribeUrl}}',
      topics: ['Sales', 'Support'],
      file: { filename: 'notes.txt', contentType: 'text/plain', content: Buffer.from('some notes').toString('base64') },
    });

    expect(response.status).toBe(200);
    const [notice] = (await storedEmails(sender.domain)).filter((stored) => stored.destination.to.includes(owner));
    expect(notice).toMatchObject({ from: `Forms <${sender.from}>`, replyTo: [submitter], subject: 'New submission: Contact us' });
    expect(notice!.body.html).toContain('Message &lt;required&gt;');
    expect(notice!.body.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; {{unsubscribeUrl}}');
    expect(notice!.body.html).not.toContain('<script>');
    expect(notice!.body.html).toContain('Sales, Support');
    expect(notice!.body.html).toContain(response.body.submissionId);
    expect(notice!.body.text).toContain('Your email');
    expect(notice!.attachments).toEqual([expect.objectContaining({ filename: 'notes.txt', contentType: 'text/plain' })]);
  });

  it('sends one notification per submission and none for a honeypot or an invalid submission', async () => {
    const sender = await createSender();
    const owner = uniqueAddress('owner');
    const form = await createForm(sender.key, { settings: { notifyEmail: owner, from: sender.from } });

    await submit(form.id, { email: 'a@example.com' });
    await submit(form.id, { email: 'b@example.com' });
    await submit(form.id, { email: 'bot@example.com', _hp: 'x' });
    await submit(form.id, { email: 'invalid' });

    expect((await storedEmails(sender.domain)).filter((stored) => stored.destination.to.includes(owner))).toHaveLength(2);
  });

  it("sends a spec-shaped form's notice, with no from, from no-reply@ the account's earliest verified domain", async () => {
    const account = await createTestAccount();
    const domainName = () => `d${randomBase62(10).toLowerCase()}.example.com`;
    // Added first but never verified: not a sender.
    const unverified = await request('POST', '/api/domains', { key: account.key, body: { domain: domainName() } });
    const [earliest, later] = [domainName(), domainName()];
    await verifyDomain(account.accountId, earliest, localVerifier);
    await verifyDomain(account.accountId, later, localVerifier);
    const owner = uniqueAddress('owner');
    // The spec's form body: settings without `from`.
    const created = await request('POST', '/api/forms', {
      key: account.key,
      body: {
        title: 'Contact us',
        fields: [{ id: 'email', type: 'email', label: 'Email', required: true }],
        settings: { successMessage: 'Thanks!', notifyEmail: owner, enableCaptcha: false, storeResponses: true },
        published: true,
      },
    });

    const submitted = await submit(created.body.data?.id, { email: 'ann@example.com' });

    expect(unverified.status).toBe(201);
    expect(created.status).toBe(201);
    expect(created.body.data.settings).toMatchObject({ notifyEmail: owner, from: null });
    expect(submitted.status).toBe(200);
    const [notice] = (await storedEmails(earliest)).filter((stored) => stored.destination.to.includes(owner));
    expect(notice).toMatchObject({ from: `no-reply@${earliest}`, subject: 'New submission: Contact us', replyTo: ['ann@example.com'] });
    expect(await storedEmails(later)).toHaveLength(0);
  });
});

describe('a form that sends mail without a from needs a verified domain', () => {
  it.each([
    ['notifyEmail', { notifyEmail: 'owner@example.com' }, 'settings.notifyEmail'],
    ['doubleOptIn', { doubleOptIn: true }, 'settings.doubleOptIn'],
    ['both', { notifyEmail: 'owner@example.com', doubleOptIn: true }, 'settings.notifyEmail'],
  ])('refuses %s on an account without one: 403 SENDER_NOT_VERIFIED naming the setting, on create and update', async (_case, settings, field) => {
    const account = await createTestAccount();
    const audienceId = (await request('POST', '/api/audiences', { key: account.key, body: { name: 'Leads' } })).body.data.id;
    const quiet = await createForm(account.key, { audienceId });

    const created = await request('POST', '/api/forms', { key: account.key, body: formBody({ audienceId, settings }) });
    const updated = await request('PATCH', `/api/forms/${quiet.id}`, { key: account.key, body: { settings } });

    for (const response of [created, updated]) {
      expect(response.status).toBe(403);
      expect(response.body).toMatchObject({ success: false, error: 'SENDER_NOT_VERIFIED', field });
    }
    expect((await request('GET', `/api/forms/${quiet.id}`, { key: account.key })).body.data.settings).toMatchObject({ notifyEmail: null, doubleOptIn: false });
  });

  it('accepts them once the account has a verified domain, and a form naming its own from needs no other', async () => {
    const sender = await createSender();
    const audienceId = await audienceOf(sender);

    const withDefault = await request('POST', '/api/forms', {
      key: sender.key,
      body: formBody({ audienceId, settings: { notifyEmail: 'owner@example.com', doubleOptIn: true } }),
    });

    expect(withDefault.status).toBe(201);
    expect(withDefault.body.data.settings).toMatchObject({ from: null, notifyEmail: 'owner@example.com', doubleOptIn: true });
  });
});
