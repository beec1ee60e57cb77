import { describe, expect, it } from 'vitest';
import { request } from '../support/api.ts';
import { createSender, storedEmails, uniqueAddress, type Sender } from '../sending/support.ts';
import { createForm, submit } from './support.ts';

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

  it('updates the contact on a repeat submission and never changes a recorded opt-out', async () => {
    const sender = await createSender();
    const audienceId = await audienceOf(sender);
    const form = await createForm(sender.key, { fields: CONTACT_FIELDS, audienceId });
    const returning = uniqueAddress('returning');
    const optedOut = uniqueAddress('optedout');
    await request('POST', '/api/contacts', { key: sender.key, body: { email: optedOut, audienceId, status: 'unsubscribed' } });

    await submit(form.id, { email: returning, firstName: 'Old' });
    await submit(form.id, { email: returning, firstName: 'New' });
    await submit(form.id, { email: optedOut, firstName: 'Still out' });

    expect((await contactIn(sender, audienceId, returning)).body.data).toMatchObject({ firstName: 'New', status: 'subscribed' });
    expect((await contactIn(sender, audienceId, optedOut)).body.data).toMatchObject({ firstName: 'Still out', status: 'unsubscribed' });
    expect(await statsOf(sender, audienceId)).toMatchObject({ total: 2, subscribed: 1, unsubscribed: 1 });
  });

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

/** The confirmation link of the newest email to `to`, as a path on the local API. */
async function confirmationLink(sender: Sender, to: string): Promise<string> {
  const email = (await storedEmails(sender.domain)).filter((stored) => stored.destination.to.includes(to)).at(-1);
  const href = /href="([^"]*\/confirm\/[^"]*)"/.exec(email?.body.html ?? '')?.[1];
  if (!href) throw new Error(`no confirmation link sent to ${to}`);
  const url = new URL(href.replaceAll('&amp;', '&'));
  return `${url.pathname}${url.search}`;
}

describe('double opt-in', () => {
  it('keeps a new contact pending until the signed link in its confirmation email is opened', async () => {
    const sender = await createSender();
    const audienceId = await audienceOf(sender);
    const form = await createForm(sender.key, { title: 'Weekly <news>', fields: CONTACT_FIELDS, audienceId, settings: { doubleOptIn: true, from: `Acme <${sender.from}>` } });
    const email = uniqueAddress('optin');

    await submit(form.slug, { email, firstName: 'Ann' });

    expect((await contactIn(sender, audienceId, email)).body.data.status).toBe('pending');
    expect(await statsOf(sender, audienceId)).toMatchObject({ total: 1, pending: 1, subscribed: 0 });
    const [sent] = (await storedEmails(sender.domain)).filter((stored) => stored.destination.to.includes(email));
    expect(sent).toMatchObject({ from: `Acme <${sender.from}>`, subject: 'Please confirm your subscription' });
    expect(sent!.body.html).toContain('through the form “Weekly &lt;news&gt;”');
    const link = await confirmationLink(sender, email);
    expect(link).toMatch(new RegExp(`^/confirm/[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\?audienceId=${audienceId}$`));

    const opened = await request('GET', link);
    const again = await request('GET', link);

    expect(opened.status).toBe(200);
    expect(opened.body).toContain('<h1>You are subscribed</h1>');
    expect((await contactIn(sender, audienceId, email)).body.data.status).toBe('subscribed');
    expect(await statsOf(sender, audienceId)).toMatchObject({ total: 1, pending: 0, subscribed: 1 });
    expect(again.status).toBe(200);
    expect(again.body).toContain('<h1>You are already subscribed</h1>');
  });

  it('refuses a tampered or incomplete link and changes nothing', async () => {
    const sender = await createSender();
    const audienceId = await audienceOf(sender);
    const form = await createForm(sender.key, { fields: CONTACT_FIELDS, audienceId, settings: { doubleOptIn: true, from: sender.from } });
    const email = uniqueAddress('tamper');
    await submit(form.id, { email });
    const link = await confirmationLink(sender, email);
    const [path, query] = link.split('?') as [string, string];
    const tampered = `${path.slice(0, -3)}${path.endsWith('AAA') ? 'BBB' : 'AAA'}?${query}`;

    for (const bad of [tampered, path, `${path}?audienceId=aud_0Vbcs0FZOM1rqYBywxzZ`, '/confirm/garbage?audienceId=x']) {
      const response = await request('GET', bad);
      expect(response.status, bad).toBe(400);
      expect(response.body).toContain('<h1>This link is not valid</h1>');
    }
    expect((await contactIn(sender, audienceId, email)).body.data.status).toBe('pending');
  });

  it('asks again on a repeat submission while pending, and leaves an unsubscribed contact alone', async () => {
    const sender = await createSender();
    const audienceId = await audienceOf(sender);
    const form = await createForm(sender.key, { fields: CONTACT_FIELDS, audienceId, settings: { doubleOptIn: true, from: sender.from } });
    const pending = uniqueAddress('pending');
    const out = uniqueAddress('out');
    await request('POST', '/api/contacts', { key: sender.key, body: { email: out, audienceId, status: 'unsubscribed' } });

    await submit(form.id, { email: pending });
    await submit(form.id, { email: pending });
    await submit(form.id, { email: out });

    const sent = await storedEmails(sender.domain);
    expect(sent.filter((stored) => stored.destination.to.includes(pending))).toHaveLength(2);
    expect(sent.filter((stored) => stored.destination.to.includes(out))).toHaveLength(0);
    expect((await contactIn(sender, audienceId, out)).body.data.status).toBe('unsubscribed');
  });
});

describe('submission notifications', () => {
  it('emails notifyEmail each submission from the form\'s sender, values escaped and files attached', async () => {
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
});
